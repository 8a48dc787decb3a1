/**
 * Integers past 2^53 as a body wrote them. JSON.parse turns each into the
 * nearest double, so two different ids (9007199254740993 and
 * 9007199254740992, a snowflake id) compared as equal, a diff showed a
 * value neither side sent, and a body re-written for redaction was stored
 * with a rounded one. A body whose text holds such a literal is parsed
 * keeping each as `JSON.rawJSON` of its digits: a leaf the diff compares by
 * value and that JSON.stringify writes back as the digits it came with
 * (docs/diff.md "What is compared").
 */

/** What Bun's JSON has of the JSON.parse source text access proposal (JSON.rawJSON, the reviver's context). */
interface RawJson {
  rawJSON(text: string): LargeInteger
  isRawJSON(value: unknown): boolean
  parse(text: string, reviver: (this: unknown, key: string, value: unknown, context: { source?: string }) => unknown): unknown
}

const RAW_JSON = JSON as unknown as RawJson

/**
 * Whether this runtime has JSON.rawJSON (Bun 1.4 has it): without it,
 * bodies are parsed by JSON.parse alone and large integers round, as
 * before, rather than every comparison failing on a missing function.
 */
const KEEPS_LARGE_INTEGERS = typeof RAW_JSON.rawJSON === 'function' && typeof RAW_JSON.isRawJSON === 'function'

/** An integer literal past 2^53, as JSON.rawJSON holds it (frozen, null prototype). */
export interface LargeInteger {
  readonly rawJSON: string
}

/**
 * 2^53 is 9007199254740992: an integer past it has 17 digits or more, or
 * 16 starting with 9. Text without such a run (most bodies; a clock in
 * microseconds is 16 digits starting with 1) is parsed by JSON.parse
 * alone; the reviver that keeps large integers costs about 8 times as
 * much.
 */
const LONG_DIGITS = /\d{17}|9\d{15}/
const INTEGER_LITERAL = /^-?\d+$/

export function isLargeInteger(value: unknown): value is LargeInteger {
  return KEEPS_LARGE_INTEGERS && typeof value === 'object' && value !== null && RAW_JSON.isRawJSON(value)
}

/** An object or array of a parsed body, a large integer aside: what a walk over the value descends into. */
export function isJsonContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === 'object' && value !== null && !isLargeInteger(value)
}

/** JSON.parse, keeping integers past 2^53 as written; throws as JSON.parse does. */
export function parseJson(text: string): unknown {
  return KEEPS_LARGE_INTEGERS && LONG_DIGITS.test(text) ? RAW_JSON.parse(text, keepLargeIntegers) : JSON.parse(text)
}

function keepLargeIntegers(_key: string, value: unknown, context: { source?: string }): unknown {
  if (typeof value !== 'number' || Number.isSafeInteger(value)) return value
  const source = context?.source
  return source !== undefined && INTEGER_LITERAL.test(source) ? RAW_JSON.rawJSON(source) : value
}

/**
 * Whether two values are the same number within `tolerance` (float_tolerance)
 * when one or both are large integers: two large integers by their exact
 * difference, a large integer and a plain number by the nearest double.
 * False when neither is a large integer, or one is not a number at all.
 */
export function sameLargeNumber(a: unknown, b: unknown, tolerance: number): boolean {
  const x = isLargeInteger(a) ? a.rawJSON : typeof a === 'number' ? a : undefined
  const y = isLargeInteger(b) ? b.rawJSON : typeof b === 'number' ? b : undefined
  if (x === undefined || y === undefined || (typeof x === 'number' && typeof y === 'number')) return false
  if (typeof x === 'string' && typeof y === 'string') {
    if (x === y) return true
    if (tolerance === 0) return false
    const gap = BigInt(x) - BigInt(y)
    return Number(gap < 0n ? -gap : gap) <= tolerance
  }
  return Math.abs(Number(x) - Number(y)) <= tolerance
}
