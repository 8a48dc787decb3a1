import { childPointer, parsePointer } from './json-pointer.ts'
import type { PatchOp } from './types.ts'

/**
 * Which locations of the live and shadow documents to highlight for a
 * diff. DESIGN.md "Diff semantics": the patch is RFC 6902, and "applied in
 * order to the live document it yields the shadow document". Paths of later
 * operations therefore refer to the document as changed by the earlier ones
 * (two removes at `/items/0` remove live items 0 and 1). To highlight the
 * right places, the patch is replayed on a light tree that remembers, for
 * every node, where it came from in the live document; after the replay, a
 * walk of the tree gives each new or changed node's place in the shadow
 * document. Only the branches the patch touches are ever expanded, so a
 * 1 MB body costs as much as its diff, not its size.
 */

export const MARKS = ['added', 'removed', 'changed'] as const
export type Mark = (typeof MARKS)[number]

/** Where one operation lands on each side; either may be absent. */
export interface LocatedOp {
  readonly op: PatchOp
  /** The live location it removes or replaces. */
  readonly livePointer?: string
  /** The shadow location it adds or replaces. */
  readonly shadowPointer?: string
  /** The path did not resolve against the live document. */
  readonly unresolved: boolean
}

export interface DiffHighlights {
  /** Pointer into the live document → how it differs. */
  readonly live: ReadonlyMap<string, Mark>
  /** Pointer into the shadow document → how it differs. */
  readonly shadow: ReadonlyMap<string, Mark>
  readonly ops: readonly LocatedOp[]
}

interface Node {
  /** Live pointer of the value this node holds unchanged from live, else null. */
  origin: string | null
  /** Set on a node the patch created (add) or overwrote (replace). */
  mark?: 'added' | 'changed'
  value: unknown
  kids?: Node[] | Map<string, Node>
}

const INDEX = /^(0|[1-9]\d*)$/

/** Computes the highlights of `ops` applied to `liveDoc`; never throws. */
export function diffHighlights(liveDoc: unknown, ops: readonly PatchOp[]): DiffHighlights {
  const live = new Map<string, Mark>()
  const holder: Node = { origin: null, value: [liveDoc], kids: [{ origin: '', value: liveDoc }] }
  const located: { op: PatchOp; livePointer?: string; created?: Node; unresolved: boolean }[] = []

  for (const op of ops) {
    const tokens = parsePointer(op.path)
    const step = tokens ? apply(holder, tokens, op, live) : undefined
    if (step) {
      located.push({ op, ...step, unresolved: false })
      continue
    }
    // The path does not fit the live document (an inconsistent capture):
    // mark the raw path, best effort, and keep going.
    if (op.op !== 'add') live.set(op.path, op.op === 'remove' ? 'removed' : 'changed')
    located.push({ op, livePointer: op.op === 'add' ? undefined : op.path, unresolved: true })
  }

  const shadow = new Map<string, Mark>()
  const places = new Map<Node, string>()
  const root = (holder.kids as Node[])[0]
  if (root) walk(root, '', shadow, places, false)

  const out: LocatedOp[] = located.map((l) => {
    const shadowPointer = l.created
      ? places.get(l.created)
      : l.unresolved && l.op.op !== 'remove'
        ? l.op.path
        : undefined
    if (l.unresolved && shadowPointer !== undefined) {
      shadow.set(shadowPointer, l.op.op === 'add' ? 'added' : 'changed')
    }
    return { op: l.op, livePointer: l.livePointer, shadowPointer, unresolved: l.unresolved }
  })
  return { live, shadow, ops: out }
}

function apply(
  holder: Node,
  tokens: string[],
  op: PatchOp,
  live: Map<string, Mark>,
): { livePointer?: string; created?: Node } | undefined {
  // The root is the single child of a holder array, so `''` works like any path.
  const path = ['0', ...tokens]
  let parent = holder
  for (const t of path.slice(0, -1)) {
    const next = child(parent, t)
    if (!next) return undefined
    parent = next
  }
  const key = path[path.length - 1] as string
  const kids = expand(parent)
  if (!kids) return undefined

  switch (op.op) {
    case 'add': {
      const existing = Array.isArray(kids) ? undefined : kids.get(key)
      // RFC 6902 §4.1: add on an existing member replaces its value.
      const mark = existing?.origin != null ? 'changed' : 'added'
      const created: Node = { origin: existing?.origin ?? null, mark, value: op.value }
      if (Array.isArray(kids)) {
        const i = key === '-' ? kids.length : INDEX.test(key) ? Number(key) : -1
        if (i < 0 || i > kids.length) return undefined
        kids.splice(i, 0, created)
      } else {
        kids.set(key, created)
      }
      if (existing?.origin != null) live.set(existing.origin, 'changed')
      return { created, livePointer: existing?.origin ?? undefined }
    }
    case 'remove': {
      const target = child(parent, key)
      if (!target) return undefined
      if (Array.isArray(kids)) kids.splice(Number(key), 1)
      else kids.delete(key)
      if (target.origin !== null) live.set(target.origin, 'removed')
      return { livePointer: target.origin ?? undefined }
    }
    case 'replace': {
      const target = child(parent, key)
      if (!target) return undefined
      const created: Node = {
        origin: target.origin,
        mark: target.mark === 'added' ? 'added' : 'changed',
        value: op.value,
      }
      if (Array.isArray(kids)) kids[Number(key)] = created
      else kids.set(key, created)
      if (target.origin !== null) live.set(target.origin, 'changed')
      return { created, livePointer: target.origin ?? undefined }
    }
  }
}

/** Children of a container node, created from its value on first use. */
function expand(node: Node): Node[] | Map<string, Node> | undefined {
  if (node.kids) return node.kids
  // Inside a node the patch wrote, nothing comes from live any more.
  const base = node.mark ? null : node.origin
  const at = (token: string | number) => (base === null ? null : childPointer(base, token))
  if (Array.isArray(node.value)) {
    node.kids = node.value.map((value, i) => ({ origin: at(i), value }))
  } else if (typeof node.value === 'object' && node.value !== null) {
    node.kids = new Map(
      Object.entries(node.value).map(([k, value]) => [k, { origin: at(k), value }] as const),
    )
  }
  return node.kids
}

function child(node: Node, token: string): Node | undefined {
  const kids = expand(node)
  if (!kids) return undefined
  if (Array.isArray(kids)) return INDEX.test(token) ? kids[Number(token)] : undefined
  return kids.get(token)
}

/** Records the final place of every expanded node, and the topmost marks. */
function walk(node: Node, pointer: string, marks: Map<string, Mark>, places: Map<Node, string>, inMarked: boolean) {
  places.set(node, pointer)
  if (node.mark && !inMarked) marks.set(pointer, node.mark)
  const kids = node.kids
  if (!kids) return
  const marked = inMarked || node.mark !== undefined
  if (Array.isArray(kids)) kids.forEach((k, i) => walk(k, childPointer(pointer, i), marks, places, marked))
  else for (const [key, k] of kids) walk(k, childPointer(pointer, key), marks, places, marked)
}

/**
 * The marks under `prefix` (e.g. `/body`), re-rooted so that `prefix`
 * itself becomes `''`: what a body viewer needs from whole-document marks.
 */
export function marksUnder(marks: ReadonlyMap<string, Mark>, prefix: string): Map<string, Mark> {
  const out = new Map<string, Mark>()
  for (const [p, m] of marks) {
    if (p === prefix) out.set('', m)
    else if (p.startsWith(prefix + '/')) out.set(p.slice(prefix.length), m)
  }
  return out
}
