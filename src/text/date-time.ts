/**
 * RFC 3339 date-times as the API accepts them, shared with the hub, which
 * drops from its address bar what the API would refuse. Pure.
 */

/** RFC 3339: a date, a time and an offset (`Z` or `±hh:mm`). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/

/** Instants the database and its driver read back as written: years 1000 to 9999, in UTC. */
const EARLIEST = Date.UTC(1000, 0, 1)
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/**
 * An RFC 3339 date-time as a Date, or undefined. Every field is checked
 * against its range (RFC 3339 §5.7): JavaScript's parser rolls
 * `2026-02-30` over to 2 March and `T24:00` to the next day instead of
 * refusing them. A leap second (`:60`) is refused: a Date cannot hold it.
 * So are instants before the year 1000 or after 9999 (UTC): PostgreSQL
 * has no year 0, and the driver reads years below 100 as 19xx.
 */
export function parseDateTime(text: string): Date | undefined {
  const m = RFC3339.exec(text)
  if (m === null) return undefined
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  if (year < 1000) return undefined
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  const inRange =
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59 &&
    (m[8] === undefined || (Number(m[8]) <= 23 && Number(m[9]) <= 59))
  if (!inRange) return undefined
  const date = new Date(text.replace(' ', 'T'))
  const time = date.getTime()
  return Number.isNaN(time) || time < EARLIEST || time > LATEST ? undefined : date
}
