/**
 * LIKE patterns for the list filters. PostgreSQL's default LIKE escape
 * character is the backslash (standard_conforming_strings is on in both
 * PostgreSQL and PGlite), so escaping `\`, `%` and `_` with it makes a text
 * match literally.
 */

/** `text` with LIKE's metacharacters escaped, so that it matches itself only. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/** A pattern matching any value that contains `text` literally (listGates filters). */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`
}

/**
 * listRequests `path` (docs/reference/api.md "listRequests"): an unanchored
 * substring match in which `*` stands for any sequence; every other character,
 * `%` and `_` included, is literal.
 */
export function pathPattern(text: string): string {
  return `%${text.split('*').map(escapeLike).join('%')}%`
}
