import { isJsonContainer } from './large-integer.ts'
import type { HeaderMap } from './capture.ts'
import { FieldMatcher, type MatchState } from './field-matcher.ts'
import { MAX_COMPARE_DEPTH } from './depth-limit.ts'
import { parseFieldPath } from './field-path.ts'
import { setOwn } from './own-property.ts'
import type { PatchOp } from './patch-op.ts'
import { parsePointer } from './pointer.ts'

/** The literal every redacted value becomes (docs/diff.md "Redaction and what is stored"). */
export const REDACTED = '[REDACTED]'

/** Always redacted, whatever a gate adds (docs/diff.md "Redaction and what is stored"). */
export const DEFAULT_REDACTED_FIELDS = [
  'headers.Authorization',
  'headers.Cookie',
  'headers.Set-Cookie',
  'headers.X-Api-Key',
  // Beyond the four usual credential headers, a credential all the same.
  // Our proxy drops it (hop-by-hop), but any client may submit captures.
  'headers.Proxy-Authorization',
] as const

/**
 * Redaction paths compiled once: the defaults plus a gate's or the
 * configuration's extra fields, in the notation of ignored_fields
 * (docs/diff.md "Redaction and what is stored"). Header names match case-insensitively.
 */
export class Redaction {
  /** Every redacted path, defaults first. */
  readonly fields: readonly string[]
  /** Some path reaches into bodies, so JSON bodies must be parsed and walked. */
  readonly redactsBody: boolean
  /** A path names the whole body (`body`, `**`-free): every body becomes `[REDACTED]`. */
  readonly redactsWholeBody: boolean
  private readonly _matcher: FieldMatcher
  private readonly _headers: MatchState
  private readonly _body: MatchState

  /** @throws FieldPathError when an extra field does not follow the notation */
  constructor(extraFields: readonly string[] = []) {
    this.fields = Object.freeze([...new Set([...DEFAULT_REDACTED_FIELDS, ...extraFields])])
    this._matcher = new FieldMatcher(this.fields.map(parseFieldPath))
    this._headers = this._matcher.step(this._matcher.start, 'headers')
    this._body = this._matcher.step(this._matcher.start, 'body')
    this.redactsBody = !this._body.dead
    this.redactsWholeBody = this._body.matched
    Object.freeze(this)
  }

  /**
   * The header map with every value of a redacted header replaced (or one
   * value, for a path such as `headers.Set-Cookie.0`). Returns the same map
   * when nothing is redacted; never modifies its input.
   */
  headers(headers: HeaderMap): HeaderMap {
    let out: HeaderMap | undefined
    for (const name in headers) {
      const values = headers[name]
      if (!Array.isArray(values)) continue
      const state = this._matcher.step(this._headers, name, true)
      if (state.dead) continue
      let redacted: string[] | undefined
      if (state.matched) {
        redacted = values.map(() => REDACTED)
      } else {
        for (let i = 0; i < values.length; i++) {
          if (!this._matcher.step(state, String(i)).matched) continue
          redacted ??= [...values]
          redacted[i] = REDACTED
        }
      }
      if (redacted === undefined) continue
      out ??= { ...headers }
      setOwn(out, name, redacted)
    }
    return out ?? headers
  }

  /**
   * Redacts a parsed JSON body in place: each redacted field keeps its key
   * and gets the string `[REDACTED]`. A secret at any depth is reached: the
   * walk recurses at most MAX_COMPARE_DEPTH levels at a time and queues
   * anything deeper, so no nesting can overflow the stack. Returns the value
   * (a new one when the whole body is redacted) and whether anything changed.
   */
  json(body: unknown): { value: unknown; changed: boolean } {
    if (this.redactsWholeBody) return { value: REDACTED, changed: body !== REDACTED }
    if (!this.redactsBody || typeof body !== 'object' || body === null) {
      return { value: body, changed: false }
    }
    return { value: body, changed: this._walk(body as Container, this._body) }
  }

  /**
   * A diff submitted with a capture (createRequest's `diff`), made fit to
   * store: an operation at or under a redacted field is dropped, as redacted
   * fields are no part of a diff, and a value that holds a redacted field
   * further down has it replaced by REDACTED. Paths are RFC 6901 pointers into
   * `{status, headers, body}`; header names match case-insensitively. Never
   * modifies its input.
   *
   * @throws SyntaxError when a path is not a JSON Pointer
   */
  patchOps(ops: readonly PatchOp[]): PatchOp[] {
    const out: PatchOp[] = []
    for (const op of ops) {
      const tokens = parsePointer(op.path)
      let state = this._matcher.start
      for (let i = 0; i < tokens.length && !state.dead && !state.matched; i++) {
        state = this._matcher.step(state, tokens[i]!, state === this._headers)
      }
      if (state.matched) continue
      if (state.dead) {
        out.push(op)
        continue
      }
      if (!hasDocumentShape(tokens, op.value)) {
        // Headers that are not a name → values map cannot be walked as
        // headers; a secret could hide anywhere in it (fail closed).
        out.push({ ...op, value: REDACTED })
        continue
      }
      if (typeof op.value !== 'object' || op.value === null) {
        out.push(op)
        continue
      }
      const value = structuredClone(op.value) as Container
      this._walk(value, state)
      out.push({ ...op, value })
    }
    return out
  }

  /** Redacts below `state` in place; whether anything changed. */
  private _walk(container: Container, state: MatchState): boolean {
    const walk = new RedactionWalk(this._matcher, this._headers)
    walk.queue.push(container, state)
    while (walk.queue.length > 0) {
      const next = walk.queue.pop() as MatchState
      walk.visit(walk.queue.pop() as Container, next, 0)
    }
    return walk.changed
  }
}

type Container = Record<string, unknown> | unknown[]

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isHeaderValues(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
}

function isHeaderMap(value: unknown): boolean {
  return isPlainObject(value) && Object.values(value).every(isHeaderValues)
}

/**
 * Whether a value at `tokens` has the shape of that place in `{status,
 * headers, body}` where headers are concerned (anything goes under body):
 * the document an object whose `headers` is a header map, `/headers` a
 * header map, `/headers/<name>` a list of strings.
 */
function hasDocumentShape(tokens: readonly string[], value: unknown): boolean {
  if (tokens.length === 0) return isPlainObject(value) && (!('headers' in value) || isHeaderMap(value.headers))
  if (tokens[0] !== 'headers') return true
  if (tokens.length === 1) return isHeaderMap(value)
  if (tokens.length === 2) return isHeaderValues(value)
  return true
}

class RedactionWalk {
  changed = false
  /** Containers (and their states) past the recursion bound, visited later from depth 0. */
  readonly queue: Array<Container | MatchState> = []
  constructor(
    private readonly _matcher: FieldMatcher,
    /** Below this state keys are header names, matched case-insensitively. */
    private readonly _headers: MatchState,
  ) {}

  visit(container: Container, state: MatchState, depth: number): void {
    if (depth >= MAX_COMPARE_DEPTH) {
      this.queue.push(container, state)
      return
    }
    const matcher = this._matcher
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const child = matcher.stepIndex(state, i)
        if (child.dead) continue
        const item = container[i]
        if (child.matched) {
          if (item !== REDACTED) {
            container[i] = REDACTED
            this.changed = true
          }
        } else if (isJsonContainer(item)) {
          this.visit(item, child, depth + 1)
        }
      }
      return
    }
    const caseless = state === this._headers
    for (const key in container) {
      const child = matcher.step(state, key, caseless)
      if (child.dead) continue
      const item = container[key]
      if (child.matched) {
        if (caseless && Array.isArray(item)) {
          // A header's values, as `headers()` redacts them.
          setOwn(container, key, item.map(() => REDACTED))
          this.changed = true
        } else if (item !== REDACTED) {
          setOwn(container, key, REDACTED)
          this.changed = true
        }
      } else if (isJsonContainer(item)) {
        // A large integer (large-integer.ts) is a frozen leaf, not a container.
        this.visit(item, child, depth + 1)
      }
    }
  }
}

/** Compiles the default redaction plus `extraFields`; see Redaction. */
export function compileRedaction(extraFields: readonly string[] = []): Redaction {
  return new Redaction(extraFields)
}
