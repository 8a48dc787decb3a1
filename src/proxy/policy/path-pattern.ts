/**
 * Path patterns of the shadow rules (docs/proxy.md "Which requests are
 * shadowed", the wildcard table). A pattern is compiled once, at startup, into the cheapest
 * test that implements its row of the table: plain string comparisons for
 * the four anchored forms, a glob walk for the segment form.
 *
 * Matching is case-insensitive: the pattern is lower-cased here, and the
 * caller passes a lower-cased request path (see `shadow-rules.ts`, which
 * lower-cases the path once per request, not once per rule).
 */

import { globMatches, globTokens } from '../../text/glob.ts'

/** The rows of the wildcard table (docs/proxy.md), plus a pattern without any `*`. */
export const PATH_PATTERN_KINDS = [
  'any',
  'exact',
  'prefix',
  'suffix',
  'substring',
  'segment',
] as const
export type PathPatternKind = (typeof PATH_PATTERN_KINDS)[number]

export interface PathPattern {
  /** The pattern as written in the rule. */
  readonly source: string
  readonly kind: PathPatternKind
  /**
   * True when the pattern contains `//`: doubled slashes in the request
   * path are merged first unless the pattern itself contains `//`, so such a
   * pattern is tested against the path as received.
   */
  readonly keepsDoubledSlashes: boolean
  /** Tests a request path that is already lower-cased (and merged, unless `keepsDoubledSlashes`). */
  readonly test: (lowerPath: string) => boolean
}

/** Why a pattern cannot be compiled; `shadow-rules.ts` wraps it with the rule's position. */
export class PathPatternError extends Error {
  readonly code = 'invalid-path-pattern'
  constructor(
    readonly pattern: string,
    /** What a pattern must be, e.g. `a pattern that starts with "/" or "*"`. */
    readonly expected: string,
  ) {
    super(`path pattern "${pattern}": expected ${expected}`)
  }
}

/**
 * Compiles a path pattern. Rejected, because such a rule could never match
 * and would fail silently: an empty pattern; a pattern that does not start
 * with `/` or `*` (request paths always start with `/`); a pattern with a
 * `?` (the query string is not part of the matched path); a segment-form
 * pattern whose leading `*` is not followed by `/`.
 */
export function compilePathPattern(source: string): PathPattern {
  if (source === '') throw new PathPatternError(source, 'a non-empty pattern')
  if (source[0] !== '/' && source[0] !== '*') {
    throw new PathPatternError(source, 'a pattern that starts with "/" or "*"')
  }
  if (source.includes('?')) {
    throw new PathPatternError(source, 'a pattern without "?" (the query string is never matched)')
  }
  const lower = decodeUnreserved(source).toLowerCase()
  const kind = classify(lower)
  if (kind === 'segment' && lower.replace(/^\*+/, '')[0] !== '/') {
    // A segment `*` cannot match the `/` every request path starts with, so
    // `*a*b*` could only ever match an empty first segment: never.
    throw new PathPatternError(source, 'a "/" after the leading "*" of a segment pattern')
  }
  return Object.freeze({
    source,
    kind,
    keepsDoubledSlashes: lower.includes('//'),
    test: compileTest(kind, lower),
  })
}

/**
 * Picks the row of the wildcard table. "trailing `*` only" and "leading `*`
 * only" mean exactly one `*`, at that end; "leading and trailing" means
 * exactly two, one at each end. Every other placement, including `/api/**`
 * and `*a*b*`, is the segment form.
 */
function classify(pattern: string): PathPatternKind {
  if (pattern === '*') return 'any'
  const stars = countStars(pattern)
  if (stars === 0) return 'exact'
  const leading = pattern.startsWith('*')
  const trailing = pattern.endsWith('*')
  if (stars === 1 && trailing) return 'prefix'
  if (stars === 1 && leading) return 'suffix'
  if (stars === 2 && leading && trailing) return 'substring'
  return 'segment'
}

function countStars(pattern: string): number {
  let count = 0
  for (let i = pattern.indexOf('*'); i !== -1; i = pattern.indexOf('*', i + 1)) count++
  return count
}

function compileTest(kind: PathPatternKind, pattern: string): (path: string) => boolean {
  switch (kind) {
    case 'any':
      return () => true
    case 'exact':
      return (path) => path === pattern
    case 'prefix': {
      const prefix = pattern.slice(0, -1)
      return (path) => path.startsWith(prefix)
    }
    case 'suffix': {
      const suffix = pattern.slice(1)
      return (path) => path.endsWith(suffix)
    }
    case 'substring': {
      const middle = pattern.slice(1, -1)
      return (path) => path.includes(middle)
    }
    case 'segment': {
      // Each `*` stands for any run of characters inside one segment, `/`
      // excluded ("does not cross `/`"), the run possibly empty as in
      // shell globs and Go's path.Match. Not a RegExp: several `*` in one
      // segment would backtrack polynomially on a long path (glob.ts).
      const stars = new Set<number>()
      for (let at = pattern.indexOf('*'); at !== -1; at = pattern.indexOf('*', at + 1)) stars.add(at)
      const tokens = globTokens(pattern, stars)
      return (path) => globMatches(tokens, path, '/')
    }
  }
}

/**
 * Decodes percent-encoded unreserved characters (RFC 3986 §6.2.2.2: `%61`
 * is `a`, and a server treats them alike), so that `/%61dmin` cannot slip
 * past a rule that denies `/admin/*`. Every other escape, `%2F` included,
 * is kept: decoding it would change which segments the path has.
 */
export function decodeUnreserved(path: string): string {
  if (!path.includes('%')) return path
  return path.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16))
    return /[A-Za-z0-9\-._~]/.test(char) ? char : escape
  })
}

/** Merges runs of `/` into one: doubled slashes in a request path are merged before matching. */
export function mergeSlashes(path: string): string {
  return path.includes('//') ? path.replace(/\/{2,}/g, '/') : path
}
