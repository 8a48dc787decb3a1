import { type } from 'arktype'
import { BASE_URL_RULE, isBaseUrl } from '../net/base-url.ts'
import { parseCidr, CidrSet } from '../net/cidr.ts'
import { ALLOWED_HOSTS_RULE, AllowedHosts, parseHostPattern } from '../net/allowed-hosts.ts'
import { DURATION_RULE, MAX_AGE_MS, MAX_AGE_RULE, MAX_TIMER_MS, MAX_TIMER_RULE, parseDuration } from './duration.ts'

/**
 * arktype morphs from an environment string to a typed value. Each rejects
 * with the rule it enforces, phrased to follow the variable and its value
 * in the startup error line ("must be ...").
 */

export const durationField = type('string').pipe((text, ctx) => {
  const ms = parseDuration(text)
  return ms === undefined ? ctx.error(DURATION_RULE.replace(/^must be /, '')) : ms
})

/**
 * A positive duration for ages compared with clocks (retention, clock
 * skew), never waited on: at most MAX_AGE_MS, far beyond a timer's bound.
 */
export const positiveAgeField = type('string').pipe((text, ctx) => {
  const ms = parseDuration(text)
  if (ms === undefined) return ctx.error(DURATION_RULE.replace(/^must be /, ''))
  if (ms <= 0) return ctx.error('a positive duration')
  return ms <= MAX_AGE_MS ? ms : ctx.error(MAX_AGE_RULE)
})

/** A positive duration that is waited on (a timeout, an interval): at most MAX_TIMER_MS. */
export const positiveDurationField = type('string').pipe((text, ctx) => {
  const ms = parseDuration(text)
  if (ms === undefined) return ctx.error(DURATION_RULE.replace(/^must be /, ''))
  if (ms <= 0) return ctx.error('a positive duration')
  return ms <= MAX_TIMER_MS ? ms : ctx.error(MAX_TIMER_RULE)
})

export function integerField(min: number, max = Number.MAX_SAFE_INTEGER) {
  const rule =
    max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`
  return type('string').pipe((text, ctx) => {
    const n = /^[+-]?\d+$/.test(text.trim()) ? Number(text) : NaN
    return Number.isSafeInteger(n) && n >= min && n <= max ? n : ctx.error(rule)
  })
}

/**
 * A TCP port to listen on. 0 is refused: Bun would pick a random port, and
 * a server nobody can find (its clients, the probes, the scraper) is a
 * misconfiguration, not a choice.
 */
export const portField = integerField(1, 65535)

/**
 * A decimal number as operators write one (`0.25`, `1e-3`); Number() alone
 * would also take `0x1`, `0b1` or `Infinity`.
 */
export function decimal(text: string): number {
  return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text.trim()) ? Number(text) : NaN
}

export function numberField(min: number, max: number) {
  return type('string').pipe((text, ctx) => {
    const n = decimal(text)
    return Number.isFinite(n) && n >= min && n <= max ? n : ctx.error(`a number from ${min} to ${max}`)
  })
}

/** The spellings Go's strconv.ParseBool accepts, which operators already know. */
const TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True'])
const FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False'])

export const booleanField = type('string').pipe((text, ctx) => {
  if (TRUE.has(text.trim())) return true
  if (FALSE.has(text.trim())) return false
  return ctx.error('true or false')
})

export function enumField<const T extends readonly string[]>(values: T) {
  return type('string').pipe((text, ctx) =>
    (values as readonly string[]).includes(text.trim())
      ? (text.trim() as T[number])
      : ctx.error(`one of ${values.join(', ')}`),
  )
}

/** Splits a comma-separated list, trimming entries and dropping empty ones. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

export const stringListField = type('string').pipe((text) => splitList(text))

/**
 * Origins for CORS: `scheme://host[:port]` each; the wildcard is refused
 * (docs/reference/configuration.md).
 */
export const originListField = type('string').pipe((text, ctx) => {
  const origins = splitList(text)
  for (const origin of origins) {
    if (origin === '*' || origin.includes('*')) return ctx.error('a list of origins without the wildcard "*"')
    if (!isOrigin(origin)) return ctx.error(`a list of origins such as https://hub.example.com ("${origin}" is not one)`)
  }
  // As a browser sends them: `https://a.com/` from an address bar never matched `Origin: https://a.com`.
  return origins.map((origin) => new URL(origin).origin)
})

function isOrigin(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text.replace(/\/$/, '')
  } catch {
    return false
  }
}

export const cidrListField = type('string').pipe((text, ctx) => {
  const cidrs = []
  for (const entry of splitList(text)) {
    const cidr = parseCidr(entry)
    if (!cidr) return ctx.error(`a list of IP addresses or CIDR networks ("${entry}" is neither)`)
    cidrs.push(cidr)
  }
  return new CidrSet(cidrs)
})

/**
 * SVC_APP_API_KEY (at least 16 characters, no space at either end),
 * wherever a component reads it. A key from a file or a secret ending in a
 * newline started the API, and then no request could match it: HTTP strips
 * the spaces around a header's value.
 */
export const apiKeyField = type('string >= 16')
  .describe('at least 16 characters')
  .narrow((key, ctx) => (key === key.trim() ? true : ctx.mustBe('without spaces or line breaks at either end')))

export const httpUrlField = type('string').pipe((text, ctx) =>
  isBaseUrl(text.trim()) ? new URL(text.trim()).toString().replace(/\/$/, '') : ctx.error(BASE_URL_RULE),
)

/** A duration of 0 or more; `0` typically means "no limit" (SVC_APP_HTTP_CLIENT_IDLE_CONN_TIMEOUT). */
export const nonNegativeDurationField = type('string').pipe((text, ctx) => {
  const ms = parseDuration(text)
  if (ms === undefined) return ctx.error(DURATION_RULE.replace(/^must be /, ''))
  if (ms < 0) return ctx.error('a duration of 0 or more')
  return ms <= MAX_TIMER_MS ? ms : ctx.error(MAX_TIMER_RULE)
})

/** A finite number of at least `min`, with no upper bound (a float tolerance). */
export function minimumNumberField(min: number) {
  return type('string').pipe((text, ctx) => {
    const n = decimal(text)
    return Number.isFinite(n) && n >= min ? n : ctx.error(`a number of at least ${min}`)
  })
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A UUID in its canonical 8-4-4-4-12 form, returned lower-cased. */
export const uuidField = type('string').pipe((text, ctx) =>
  UUID.test(text.trim()) ? text.trim().toLowerCase() : ctx.error('a UUID such as 0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40'),
)

/** SVC_APP_ALLOWED_HOSTS: the Host values a server answers to (src/net/allowed-hosts.ts). */
export const allowedHostsField = type('string').pipe((text, ctx) => {
  const entries = splitList(text)
  if (entries.length === 0) return ctx.error(ALLOWED_HOSTS_RULE)
  const patterns = []
  for (const entry of entries) {
    const pattern = parseHostPattern(entry)
    if (!pattern) return ctx.error(`${ALLOWED_HOSTS_RULE} ("${entry}" is not one)`)
    patterns.push(pattern)
  }
  return new AllowedHosts(patterns)
})
