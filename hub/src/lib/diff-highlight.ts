import { childPointer, parsePointer } from './json-pointer.ts'
import type { PatchOp } from './types.ts'
import { isJsonContainer } from '../../../src/diff/large-integer.ts'

/**
 * Which locations of the live and shadow documents to highlight for a diff. The
 * patch is RFC 6902, and applied in order to the live document it yields the
 * shadow document (docs/diff.md "Patch format"). Paths of later operations
 * therefore refer to the document as changed by the earlier ones (two removes
 * at `/items/0` remove live items 0 and 1). To highlight the right places, the
 * patch is replayed on a light tree that remembers, for every node, where it
 * came from in the live document; after the replay, a walk of the tree gives
 * each new or changed node's place in the shadow document. Only the branches
 * the patch touches are ever expanded, so a 1 MB body costs as much as its
 * diff, not its size.
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
  value: unknown
  /** Set on a node the patch created (add) or overwrote (replace). */
  mark?: 'added' | 'changed'
  kids?: Node[] | Map<string, Node>
  /** Container holding this node now; undefined for the root. */
  parent?: Node
  /** Member name, when the parent is an object. */
  key?: string
  /**
   * Where the value sits in the live document: `live` derives it from the
   * parent on demand (so expanding a 20,000-item array makes no strings);
   * a created node carries the pointer of the live value it overwrote.
   */
  live: { readonly parent: Node; readonly token: string } | { readonly pointer: string | null }
}

const INDEX = /^(0|[1-9]\d*)$/

/** Computes the highlights of `ops` applied to `liveDoc`; never throws. */
export function diffHighlights(liveDoc: unknown, ops: readonly PatchOp[]): DiffHighlights {
  const live = new Map<string, Mark>()
  const holder: Node = { value: [liveDoc], live: { pointer: null } }
  const root: Node = { value: liveDoc, parent: holder, live: { pointer: '' } }
  holder.kids = [root]
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
  const place = placer(root)
  const out: LocatedOp[] = located.map((l) => {
    let shadowPointer: string | undefined
    if (l.created) {
      shadowPointer = place(l.created)
      if (shadowPointer !== undefined && l.created.mark && !insideMarked(l.created)) {
        shadow.set(shadowPointer, l.created.mark)
      }
    } else if (l.unresolved && l.op.op !== 'remove') {
      shadowPointer = l.op.path
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
      const origin = existing ? originOf(existing) : null
      // RFC 6902 §4.1: add on an existing member replaces its value.
      const created: Node = {
        value: op.value,
        mark: origin !== null ? 'changed' : 'added',
        parent,
        live: { pointer: origin },
      }
      if (Array.isArray(kids)) {
        const i = key === '-' ? kids.length : INDEX.test(key) ? Number(key) : -1
        if (i < 0 || i > kids.length) return undefined
        kids.splice(i, 0, created)
      } else {
        created.key = key
        kids.set(key, created)
      }
      if (origin !== null) live.set(origin, 'changed')
      return { created, livePointer: origin ?? undefined }
    }
    case 'remove': {
      const target = child(parent, key)
      if (!target) return undefined
      if (Array.isArray(kids)) kids.splice(Number(key), 1)
      else kids.delete(key)
      const origin = originOf(target)
      if (origin !== null) live.set(origin, 'removed')
      return { livePointer: origin ?? undefined }
    }
    case 'replace': {
      const target = child(parent, key)
      if (!target) return undefined
      const origin = originOf(target)
      const created: Node = {
        value: op.value,
        mark: target.mark === 'added' ? 'added' : 'changed',
        parent,
        key: target.key,
        live: { pointer: origin },
      }
      if (Array.isArray(kids)) kids[Number(key)] = created
      else kids.set(key, created)
      if (origin !== null) live.set(origin, 'changed')
      return { created, livePointer: origin ?? undefined }
    }
  }
}

/** Children of a container node, created from its value on first use. */
function expand(node: Node): Node[] | Map<string, Node> | undefined {
  if (node.kids) return node.kids
  // Inside a node the patch wrote, nothing comes from live any more.
  const fromLive = node.mark === undefined && originOf(node) !== null
  const liveOf = (token: string): Node['live'] => (fromLive ? { parent: node, token } : { pointer: null })
  if (Array.isArray(node.value)) {
    node.kids = node.value.map((value, i) => ({ value, parent: node, live: liveOf(String(i)) }))
  } else if (isJsonContainer(node.value)) {
    node.kids = new Map(
      Object.entries(node.value).map(([key, value]) => [key, { value, parent: node, key, live: liveOf(key) }] as const),
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

/** The live pointer of a node's value, or null when it did not come from live. */
function originOf(node: Node): string | null {
  const l = node.live
  if ('pointer' in l) return l.pointer
  const base = originOf(l.parent)
  return base === null ? null : childPointer(base, l.token)
}

/** True when an ancestor was itself created by the patch (its mark covers this one). */
function insideMarked(node: Node): boolean {
  for (let p = node.parent; p; p = p.parent) if (p.mark) return true
  return false
}

/**
 * Final shadow-side pointer of a node, or undefined once it was removed.
 * Array positions are indexed once per array, so many operations in one
 * large array stay linear.
 */
function placer(root: Node): (node: Node) => string | undefined {
  const cache = new Map<Node, string | undefined>([[root, '']])
  const indexes = new Map<Node[], Map<Node, number>>()
  const place = (node: Node): string | undefined => {
    if (cache.has(node)) return cache.get(node)
    const parent = node.parent
    let result: string | undefined
    if (parent?.kids) {
      const base = place(parent)
      if (base !== undefined) {
        if (Array.isArray(parent.kids)) {
          let index = indexes.get(parent.kids)
          if (!index) {
            index = new Map(parent.kids.map((k, i) => [k, i]))
            indexes.set(parent.kids, index)
          }
          const i = index.get(node)
          if (i !== undefined) result = childPointer(base, i)
        } else if (node.key !== undefined && parent.kids.get(node.key) === node) {
          result = childPointer(base, node.key)
        }
      }
    }
    cache.set(node, result)
    return result
  }
  return place
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
