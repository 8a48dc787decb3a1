import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './depth-scan.ts'

/**
 * Whether JSON text has an object with the same key twice. JSON.parse
 * keeps the last: redaction, which works on the parsed value, never sees
 * the earlier one, so a body stored as received (redaction changed
 * nothing) kept a secret under a repeated key. Such a body is stored
 * re-written from its parsed value instead (process-capture.ts).
 *
 * For text JSON.parse has already accepted; one pass, no value built. Keys
 * with escapes are compared decoded (`"a"` and `"\u0061"` are one key).
 */
export function hasDuplicateKeys(text: string): boolean {
  // One entry per open container: the keys seen so far, or null for an array.
  const open: (Set<string> | null)[] = []
  let expectKey = false
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      let end = i + 1
      let escaped = false
      while (end < n) {
        const d = text.charCodeAt(end)
        if (d === BACKSLASH) {
          escaped = true
          end += 2
        } else if (d === QUOTE) {
          break
        } else {
          end++
        }
      }
      if (expectKey) {
        const keys = open[open.length - 1]!
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end)
        if (keys.has(key)) return true
        keys.add(key)
        expectKey = false
      }
      i = end
    } else if (c === OPEN_OBJECT) {
      open.push(new Set())
      expectKey = true
    } else if (c === OPEN_ARRAY) {
      open.push(null)
      expectKey = false
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop()
      expectKey = false
    } else if (c === COMMA) {
      expectKey = open[open.length - 1] != null
    }
  }
  return false
}

const COMMA = 0x2c
