/**
 * Go-style durations (docs/reference/configuration.md "How values are read"):
 * decimal numbers each followed by a unit, `ns`, `us`/`µs`, `ms`, `s`, `m`,
 * `h`, e.g. `720h`, `1h30m`, `1.5h`. Used to check the retention field before
 * the API does, so the form can say what is wrong next to the field.
 */

// The server's parser, bundled into the page: one definition of a duration.
import { parseDuration } from '../../../src/config/duration.ts'

export { parseDuration }

/**
 * Checks a per-gate retention (docs/reference/api.md "Gate", `retention`):
 * empty means the global floor; otherwise a positive duration of at least the
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
