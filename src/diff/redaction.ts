import type { HeaderMap } from './capture.ts'
import { FieldMatcher, type MatchState } from './field-matcher.ts'
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
   * and gets the string `[REDACTED]`. Iterative, so no nesting depth can
   * overflow the stack; a secret at any depth is reached. Returns the value
   * (a new one when the whole body is redacted) and whether anything changed.
   */
  json(body: unknown): { value: unknown; changed: boolean } {
    if (this.redactsWholeBody) return { value: REDACTED, changed: body !== REDACTED }
    if (!this.redactsBody || typeof body !== 'object' || body === null) {
      return { value: body, changed: false }
    }
    let changed = false
    const matcher = this._matcher
    const stack: Array<[Record<string, unknown> | unknown[], MatchState]> = [[body as Record<string, unknown>, this._body]]
    while (stack.length > 0) {
      const [container, state] = stack.pop()!
      if (Array.isArray(container)) {
        for (let i = 0; i < container.length; i++) {
          const child = matcher.step(state, String(i))
          if (child.dead) continue
          const item = container[i]
          if (child.matched) {
            if (item !== REDACTED) {
              container[i] = REDACTED
              changed = true
            }
          } else if (typeof item === 'object' && item !== null) {
            stack.push([item as Record<string, unknown>, child])
          }
        }
        continue
      }
      for (const key of Object.keys(container)) {
        const child = matcher.step(state, key)
        if (child.dead) continue
        const item = container[key]
        if (child.matched) {
          if (item !== REDACTED) {
            setOwn(container, key, REDACTED)
            changed = true
          }
        } else if (typeof item === 'object' && item !== null) {
          stack.push([item as Record<string, unknown>, child])
        }
      }
    }
    return { value: body, changed }
  }
}

/** Compiles the default redaction plus `extraFields`; see Redaction. */
export function compileRedaction(extraFields: readonly string[] = []): Redaction {
  return new Redaction(extraFields)
}
