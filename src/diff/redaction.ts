import type { HeaderMap } from './capture.ts'
import { FieldMatcher, type MatchState } from './field-matcher.ts'
import { MAX_COMPARE_DEPTH } from './depth-limit.ts'
import { parseFieldPath } from './field-path.ts'
import { setOwn } from './own-property.ts'

/** The literal every redacted value becomes (SPEC.md "Field redaction" rule 1). */
export const REDACTED = '[REDACTED]'

/** Always redacted, whatever a gate adds (SPEC.md "Field redaction" rules 3 and 4). */
export const DEFAULT_REDACTED_FIELDS = [
  'headers.Authorization',
  'headers.Cookie',
  'headers.Set-Cookie',
  'headers.X-Api-Key',
] as const

/**
 * Redaction paths compiled once: the defaults plus a gate's or the
 * configuration's extra fields, in the notation of ignored_fields
 * (DESIGN.md "Redaction"). Header names match case-insensitively.
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
    const walk = new RedactionWalk(this._matcher)
    walk.queue.push(body as Container, this._body)
    while (walk.queue.length > 0) {
      const state = walk.queue.pop() as MatchState
      walk.visit(walk.queue.pop() as Container, state, 0)
    }
    return { value: body, changed: walk.changed }
  }
}

type Container = Record<string, unknown> | unknown[]

class RedactionWalk {
  changed = false
  /** Containers (and their states) past the recursion bound, visited later from depth 0. */
  readonly queue: Array<Container | MatchState> = []
  constructor(private readonly _matcher: FieldMatcher) {}

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
        } else if (typeof item === 'object' && item !== null) {
          this.visit(item as Container, child, depth + 1)
        }
      }
      return
    }
    for (const key in container) {
      const child = matcher.step(state, key)
      if (child.dead) continue
      const item = container[key]
      if (child.matched) {
        if (item !== REDACTED) {
          setOwn(container, key, REDACTED)
          this.changed = true
        }
      } else if (typeof item === 'object' && item !== null) {
        this.visit(item as Container, child, depth + 1)
      }
    }
  }
}

/** Compiles the default redaction plus `extraFields`; see Redaction. */
export function compileRedaction(extraFields: readonly string[] = []): Redaction {
  return new Redaction(extraFields)
}
