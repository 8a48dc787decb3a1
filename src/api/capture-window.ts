import { InvalidBodyError } from '../errors/app-error.ts'
import { parseDateTime } from '../text/date-time.ts'

/** The default span of a window without `from`: the 24 hours before `to` (or now). */
export const DEFAULT_WINDOW_MS = 24 * 3_600_000

/** A window of stored captures by created_at, both ends included, as RFC 3339 texts for the database. */
export interface CaptureWindow {
  readonly from: string
  /** Undefined: no end. */
  readonly to?: string
}

/**
 * The window of a preview or a re-diff (docs/insights.md "Preview and
 * re-diff") from a body's optional `from` and `to` (RFC 3339, already
 * validated): as given, to the microsecond; without `from`, the 24 hours
 * before `to` (or `now`). `from` after `to` is a 400 naming `from`.
 */
export function captureWindow(body: { from?: string; to?: string }, now = Date.now()): CaptureWindow {
  const to = body.to === undefined ? undefined : parseDateTime(body.to)!
  const from = body.from === undefined ? undefined : parseDateTime(body.from)!
  if (from !== undefined && to !== undefined && from > to) throw new InvalidBodyError('from must not be after to', 'from')
  return {
    from: body.from ?? new Date((to?.getTime() ?? now) - DEFAULT_WINDOW_MS).toISOString(),
    ...(body.to === undefined ? {} : { to: body.to }),
  }
}
