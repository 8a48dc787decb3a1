import { type } from 'arktype'
import { DURATION_RULE, MAX_AGE_MS, MAX_AGE_RULE, parseDuration } from '../../config/duration.ts'
import { BASE_URL_RULE, isBaseUrl } from '../../net/base-url.ts'
import { parseDateTime } from '../../text/date-time.ts'
import { rule } from './rule.ts'

/** Query-string morphs: the wire has strings, handlers get typed values. */

export function integerQuery(min: number, max: number) {
  const rule = max === Infinity ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`
  return type('string').pipe((text, ctx) => {
    const n = /^\d+$/.test(text) ? Number(text) : NaN
    return Number.isSafeInteger(n) && n >= min && n <= max ? n : ctx.error(rule)
  })
}

export const booleanQuery = type('string').pipe((text, ctx) =>
  text === 'true' ? true : text === 'false' ? false : ctx.error('true or false'),
)

export const dateTimeQuery = type('string').pipe((text, ctx) => {
  const date = parseDateTime(text)
  return date ?? ctx.error('an RFC 3339 date-time such as 2026-01-02T15:04:05Z (years 1000 to 9999)')
})

export const dateTimeString = type('string').narrow(
  rule((text: string) => (parseDateTime(text) !== undefined ? undefined : 'an RFC 3339 date-time (years 1000 to 9999)')),
)

/**
 * A retention as updateGate takes it: a duration, not negative, at most
 * MAX_AGE_MS (100 years); a longer one cannot be taken from a date, and
 * made the cleanup's cutoff an Invalid Date.
 */
export const durationString = type('string').narrow((text, ctx) => {
  const ms = parseDuration(text)
  if (ms === undefined || text.trim().startsWith('-')) return ctx.mustBe(DURATION_RULE.replace(/^must be /, ''))
  return ms <= MAX_AGE_MS ? true : ctx.mustBe(MAX_AGE_RULE)
})

export const httpUrl = type('string').narrow((text, ctx) => {
  if (!isBaseUrl(text)) return ctx.mustBe(`absolute: ${BASE_URL_RULE}`)
  const problem = unstorableTextProblem(text)
  return problem === undefined ? true : ctx.mustBe(`a URL ${problem}`)
})

/**
 * Why PostgreSQL would not keep `text` as sent, or undefined: NUL it
 * refuses (a 500 that named no field), and a lone surrogate it stores as
 * U+FFFD, so that a gate's name, URL or field path read back other than it
 * was written. For what a gate holds; the problem names the field.
 */
export function unstorableTextProblem(text: string): string | undefined {
  if (text.includes('\0')) return 'without NUL characters'
  if (!text.isWellFormed()) return 'without lone surrogates (UTF-16 that encodes no character)'
  return undefined
}

/** A base64 string (RFC 4648 §4, padding optional). */
export const base64String = type('string').narrow(
  rule((text: string) => (/^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 !== 1 ? undefined : 'base64-encoded')),
)

export const uuid = type('string.uuid')

export const headerMap = type({ '[string]': 'string[]' })

/**
 * PostgreSQL's text cannot hold NUL: such a string reached the database
 * and came back as a 500. Refused as the client's mistake instead (body
 * fields and query filters alike). A lone surrogate is let through here:
 * a capture is stored with U+FFFD in its place rather than lost
 * (docs/storage.md), where a gate's own settings refuse it
 * (unstorableTextProblem).
 */
export const storableText = type('string').narrow(
  rule((text: string) => (text.includes('\0') ? 'text without NUL characters' : undefined)),
)

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * Headers as a client submits them: names are tokens (RFC 9110 §5.1) and
 * values hold no CR, LF or NUL (§5.5), as on the wire. A name such as
 * "Cookie " would otherwise escape the default redaction, which matches
 * names, not what they look like.
 */
export const submittedHeaderMap = headerMap.narrow(
  rule((map: typeof headerMap.infer) => {
    for (const [name, values] of Object.entries(map)) {
      // The name is not repeated: a line such as "Authorization: Bearer …" sent as a name would be.
      if (!TOKEN.test(name)) return 'header names that are tokens (RFC 9110)'
      if (values.some((value) => /[\0\r\n]/.test(value))) return `header values without CR, LF or NUL (${name})`
    }
    return undefined
  }),
)

export const sortOrder = type("'asc' | 'desc'")
