/**
 * Wildcard matching without regular expressions: `*` (any run, possibly
 * empty) and `?` (one character). A RegExp built from a pattern with
 * several `*` backtracks polynomially on a long subject (`a*a*a*b` against
 * a key of 1,000 characters took 50 s), and the subjects here are what
 * clients send: JSON keys of proxied bodies, request paths. This walks the
 * subject once per star at most: O(subject × pattern) in the worst case.
 */

/** Any run of characters, possibly empty. */
export const STAR: unique symbol = Symbol('*')
/** Exactly one character. */
export const ONE: unique symbol = Symbol('?')

/** A compiled pattern: literal characters (code points) and wildcards. */
export type GlobToken = string | typeof STAR | typeof ONE

/** Code points, so that `?` takes one character however it is encoded in UTF-16. */
function charsOf(text: string): ArrayLike<string> {
  return /[\uD800-\uDFFF]/.test(text) ? Array.from(text) : text
}

/** The tokens of `pattern` where each character at a position in `wild` is a wildcard. */
export function globTokens(pattern: string, wild: ReadonlySet<number> = new Set()): GlobToken[] {
  const tokens: GlobToken[] = []
  let at = 0
  for (const char of pattern) {
    if (wild.has(at)) tokens.push(char === '*' ? STAR : ONE)
    else tokens.push(char)
    at += char.length
  }
  return tokens
}

/**
 * Whether `subject` matches `tokens` whole. `stop`, when given, is a
 * character no wildcard takes (`/` for a path segment). The classic greedy
 * walk: on a mismatch, the last star takes one more character and the rest
 * is tried again from there; earlier stars never need to, since any match
 * they could enable the last one enables too (and with `stop`, the
 * stopped characters fix where each part must lie).
 */
export function globMatches(tokens: readonly GlobToken[], subject: string, stop?: string): boolean {
  const text = charsOf(subject)
  let t = 0
  let p = 0
  let star = -1
  let resume = 0
  while (t < text.length) {
    const token = tokens[p]
    if (token === STAR) {
      star = p++
      resume = t
    } else if (p < tokens.length && (token === ONE ? text[t] !== stop : token === text[t])) {
      p++
      t++
    } else if (star !== -1 && text[resume] !== stop) {
      p = star + 1
      t = ++resume
    } else {
      return false
    }
  }
  while (tokens[p] === STAR) p++
  return p === tokens.length
}
