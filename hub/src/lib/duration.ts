/**
 * Go-style durations (DESIGN.md "Durations"): decimal numbers each followed
 * by a unit, `ns`, `us`/`µs`, `ms`, `s`, `m`, `h`, e.g. `720h`, `1h30m`,
 * `1.5h`. Used to check the retention field before the API does, so the
 * form can say what is wrong next to the field.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
}

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y

/** Milliseconds, or `undefined` when the text is not a duration. */
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
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number)
  }
  return sign * total
}

/**
 * Checks a per-gate retention (SPEC.md Gate.retention, "Limits"): empty
 * means the global floor; otherwise a positive duration of at least the
 * floor. Returns the message to show, or `undefined` when it is valid.
 */
export function retentionError(text: string, floor: string | undefined): string | undefined {
  const value = text.trim()
  if (value === '') return undefined
  const ms = parseDuration(value)
  if (ms === undefined) return `"${value}" is not a duration; use a number with a unit, such as 720h or 1h30m`
  if (ms <= 0) return 'retention must be a positive duration'
  const floorMs = floor === undefined ? undefined : parseDuration(floor)
  if (floorMs !== undefined && ms < floorMs) {
    return `retention must be at least the global floor of ${floor}`
  }
  return undefined
}

/** A short human reading of a duration: `720h` → `30 days`. */
export function humanizeDuration(text: string): string | undefined {
  const ms = parseDuration(text)
  if (ms === undefined || ms <= 0) return undefined
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ]
  for (const [size, name] of units) {
    if (ms >= size) {
      const n = Math.round((ms / size) * 10) / 10
      return `${n} ${name}${n === 1 ? '' : 's'}`
    }
  }
  return `${ms} ms`
}
