/**
 * Nesting depth of JSON text, read without parsing. JSON.parse in Bun takes
 * about a microsecond per level of nesting (measured: a 2 MB body of
 * million-deep arrays took 1.7 s against ~7 ms for flat JSON of that size),
 * so a large, deeply nested body is scanned first and, past the bound,
 * never parsed: it is compared as text (docs/diff.md "Guards: size, depth, time").
 */

/** Bodies from this size on are scanned before parsing; smaller ones parse in bounded time. */
export const DEPTH_SCAN_FROM_BYTES = 64 * 1024

/** The characters a scan of JSON text reads (here and duplicate-keys.ts). */
export const QUOTE = 0x22
export const BACKSLASH = 0x5c
export const OPEN_ARRAY = 0x5b
export const OPEN_OBJECT = 0x7b
export const CLOSE_ARRAY = 0x5d
export const CLOSE_OBJECT = 0x7d

/**
 * Whether UTF-8 (or any ASCII-compatible) JSON text nests deeper than
 * `limit`. Text that does not start with `[` or `{` (after whitespace) is
 * not a JSON container, whatever brackets it holds: false.
 */
export function bytesNestDeeperThan(bytes: Uint8Array, limit: number): boolean {
  let depth = 0
  const length = bytes.length
  // A UTF-8 byte order mark is dropped by decoding, so skip it here too.
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  while (start < length && isWhitespace(bytes[start]!)) start++
  if (bytes[start] !== OPEN_ARRAY && bytes[start] !== OPEN_OBJECT) return false
  for (let i = start; i < length; i++) {
    const byte = bytes[i]!
    if (byte === QUOTE) {
      // Brackets inside strings do not count; skip to the closing quote.
      for (i++; i < length; i++) {
        const inner = bytes[i]!
        if (inner === BACKSLASH) i++
        else if (inner === QUOTE) break
      }
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > limit) return true
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--
    }
  }
  return false
}

/** The same scan over decoded text, for charsets that are not ASCII-compatible (UTF-16). */
export function textNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  const length = text.length
  let start = 0
  while (start < length && isWhitespace(text.charCodeAt(start))) start++
  if (text.charCodeAt(start) !== OPEN_ARRAY && text.charCodeAt(start) !== OPEN_OBJECT) return false
  for (let i = start; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) {
      for (i++; i < length; i++) {
        const inner = text.charCodeAt(i)
        if (inner === BACKSLASH) i++
        else if (inner === QUOTE) break
      }
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > limit) return true
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--
    }
  }
  return false
}

/** JSON whitespace (RFC 8259 section 2). */
function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09
}
