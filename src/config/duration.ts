/**
 * Go-style duration strings (docs/reference/configuration.md "How values are
 * read"): a sequence of decimal numbers, each with a unit, such as `300ms`,
 * `1.5h` or `2h45m`. A lone `0` is accepted as Go accepts it.
 */

const UNIT_MS = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
} as const

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y

/**
 * The longest a timer can wait: setTimeout takes a signed 32-bit count of
 * milliseconds and fires at once (after a warning) for anything longer, so
 * a timeout of 600h would time every request out immediately.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** The rule for MAX_TIMER_MS, for error messages. */
export const MAX_TIMER_RULE = 'a duration of at most 596h (the longest a timer can wait)'

/**
 * The longest age a duration may give (a retention, a clock skew): 876000h,
 * 100 years of 365 days. An age is subtracted from a clock to make a date,
 * and a date holds at most about 285,000 years either side of 1970, so
 * without a bound `99999999999h` made the cleanup's cutoff an Invalid Date.
 */
export const MAX_AGE_MS = 876_000 * 3_600_000

/** The rule for MAX_AGE_MS, for error messages. */
export const MAX_AGE_RULE = 'a duration of at most 876000h (100 years)'

/** What a duration string must look like, for error messages. */
export const DURATION_RULE = 'must be a duration such as "300ms", "1.5h" or "2h45m"'

/**
 * Parses a duration into milliseconds, or returns `undefined` when the text
 * is not a duration. A leading `-` gives a negative value.
 */
export function parseDuration(text: string): number | undefined {
  let rest = text.trim()
  let sign = 1
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1
    rest = rest.slice(1)
  }
  if (rest === '0') return 0
  if (rest === '') return undefined
  let total = 0
  PART.lastIndex = 0
  while (PART.lastIndex < rest.length) {
    const start = PART.lastIndex
    const match = PART.exec(rest)
    if (!match || match.index !== start) return undefined
    total += roundToNanoseconds(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS])
  }
  return sign * total
}

/** `1.005s` is 1005 ms, not 1004.9999999999999: round each part to whole nanoseconds while that is exact. */
function roundToNanoseconds(ms: number): number {
  const ns = ms * 1e6
  return Math.abs(ns) < Number.MAX_SAFE_INTEGER ? Math.round(ns) / 1e6 : ms
}

/** Formats milliseconds as a Go-style duration (`1h30m0s` becomes `1h30m`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s'
  const sign = ms < 0 ? '-' : ''
  let rest = Math.abs(ms)
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = rest / 1000
  let out = sign
  if (hours) out += `${hours}h`
  if (minutes) out += `${minutes}m`
  if (seconds) out += `${Number(seconds.toFixed(3))}s`
  return out
}
