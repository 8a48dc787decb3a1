/**
 * The shape of a value that changes on every call by design, read from the
 * value alone (docs/insights.md "Suggestions"): a field whose values have
 * one of these shapes and that differs in nearly every capture is
 * volatile, a candidate for `ignored_fields` even without noise checks.
 *
 * - `timestamp`: an RFC 3339 / ISO 8601 date-time (`2026-11-26T13:32:19Z`,
 *   `2026-11-26 13:32:19.123+01:00`), an HTTP date (RFC 9110 section
 *   5.6.7: `Thu, 26 Nov 2026 13:32:19 GMT`), or Unix time in seconds or
 *   milliseconds between 2001 and 2100 (a number or a string of digits);
 * - `uuid`: 8-4-4-4-12 hex digits;
 * - `token`: 16 or more characters of base64, base64url, hex or a JWT's
 *   alphabet (`A-Z a-z 0-9 - _ + / = . ~`), optionally after a short
 *   prefix such as `req_` or `cus_`, with at least 8 distinct characters
 *   and a run of 8 or more between separators (`- _ . ~ + / =`) that mixes
 *   letters and digits: random text mixes them, names made of words and
 *   numbers (`user-name-number-1`, `order-2024-confirmation`) do not.
 *
 * Anything else is `other`, as is a string longer than 512 characters. A
 * one-element array (a header's values) has the shape of its element.
 */
export const VALUE_SHAPES = ['timestamp', 'uuid', 'token', 'other'] as const
export type ValueShape = (typeof VALUE_SHAPES)[number]

/** The shapes of volatile values: every one but `other`. */
export type VolatileShape = Exclude<ValueShape, 'other'>

const MAX_TEXT = 512
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?$/
const HTTP_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DIGITS = /^\d{10}$|^\d{13}$/
const TOKEN = /^(?:[a-z]{2,8}_)?([A-Za-z0-9\-_+/=.~]{16,})$/
const SEPARATORS = /[-_.~+/=]+/
const DIGIT = /\d/
const LETTER = /[A-Za-z]/

/** 2001-09-09 to 2100-01-01, in seconds. */
const EPOCH_FROM_S = 1_000_000_000
const EPOCH_TO_S = 4_102_444_800

function isEpoch(n: number): boolean {
  if (!Number.isInteger(n)) return false
  return (n >= EPOCH_FROM_S && n < EPOCH_TO_S) || (n >= EPOCH_FROM_S * 1000 && n < EPOCH_TO_S * 1000)
}

function isMixedRun(run: string): boolean {
  return run.length >= 8 && DIGIT.test(run) && LETTER.test(run)
}

function distinctCharacters(text: string): number {
  return new Set(text).size
}

function textShape(text: string): ValueShape {
  if (text.length > MAX_TEXT) return 'other'
  if (UUID.test(text)) return 'uuid'
  if (ISO_DATE_TIME.test(text) || HTTP_DATE.test(text)) return 'timestamp'
  if (DIGITS.test(text)) return isEpoch(Number(text)) ? 'timestamp' : 'other'
  const token = TOKEN.exec(text)?.[1]
  if (token !== undefined && distinctCharacters(token) >= 8 && token.split(SEPARATORS).some(isMixedRun)) return 'token'
  return 'other'
}

/** The shape of one JSON value. */
export function valueShape(value: unknown): ValueShape {
  if (typeof value === 'string') return textShape(value)
  if (typeof value === 'number') return isEpoch(value) ? 'timestamp' : 'other'
  if (Array.isArray(value) && value.length === 1 && !Array.isArray(value[0])) return valueShape(value[0])
  return 'other'
}
