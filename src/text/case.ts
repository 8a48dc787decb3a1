/**
 * `toLowerCase` and `toUpperCase` that make no string when nothing would
 * change. A request's method, path and field names are slices of its
 * head's text, and either call on a slice makes a new string (an
 * allocation by the engine's own allocator, whose memory was last touched
 * long before) even when it returns the same characters: a request to the
 * raw server made several such strings for nothing (docs/proxy.md "CPU per
 * request"). Pure.
 */

/** Every character `toLowerCase` may change is in here (A-Z, and anything outside ASCII). */
const MAY_LOWER = /[A-Z]|[^\x00-\x7f]/
/** Every character `toUpperCase` may change is in here (a-z, and anything outside ASCII). */
const MAY_UPPER = /[a-z]|[^\x00-\x7f]/

/** `text.toLowerCase()`, without a new string when `text` has nothing to lower. */
export function lowerCase(text: string): string {
  return MAY_LOWER.test(text) ? text.toLowerCase() : text
}

/** `text.toUpperCase()`, without a new string when `text` has nothing to raise. */
export function upperCase(text: string): string {
  return MAY_UPPER.test(text) ? text.toUpperCase() : text
}

/**
 * `text.toLowerCase() === lower`, without a new string when `text` is
 * ASCII (a header name is): the comparison folds A-Z as it goes.
 */
export function lowersTo(text: string, lower: string): boolean {
  const length = text.length
  for (let i = 0; i < length; i++) if (text.charCodeAt(i) > 0x7f) return text.toLowerCase() === lower
  return length === lower.length && spellsInAnyCase(text, 0, lower)
}

/**
 * Whether `text` from `start` spells `lower` (lower case) with its ASCII
 * letters in either case: A-Z read as a-z, every other character as it is.
 */
export function spellsInAnyCase(text: string, start: number, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    const code = text.charCodeAt(start + i)
    const folded = code >= 0x41 && code <= 0x5a ? code + 0x20 : code
    if (folded !== lower.charCodeAt(i)) return false
  }
  return true
}
