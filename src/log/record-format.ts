import { errorText } from './error-text.ts'

/** Attributes of a log record: flat keys as given (`request.id`, `live_status`), any values. */
export type LogAttrs = Readonly<Record<string, unknown>>

/** How one output format writes a record. */
export interface RecordFormat {
  /** The attributes as the fragment that follows `msg` (text: ` k=v`, json: `,"k":v`). */
  attrs(attrs: LogAttrs, withStacks: boolean): string
  /** A whole line, without its newline; `fragment` is from `attrs`, concatenated. */
  line(time: string, level: string, msg: string, fragment: string): string
}

/**
 * Calls `emit` for each attribute to print: `undefined` values are left out
 * (handy for optional attributes), an Error becomes its message, followed by
 * `<key>.stack` when `withStacks` (the logger sets it at debug level only:
 * stacks are noise in production logs, and the message with its causes
 * says what went wrong).
 */
export function forEachAttr(
  attrs: LogAttrs,
  withStacks: boolean,
  emit: (key: string, value: unknown) => void,
): void {
  for (const key in attrs) {
    if (!Object.hasOwn(attrs, key)) continue
    const value = attrs[key]
    if (value === undefined) continue
    if (value instanceof Error) {
      emit(key, errorText(value))
      if (withStacks && typeof value.stack === 'string') emit(`${key}.stack`, value.stack)
      continue
    }
    emit(key, value)
  }
}

/** A Date as RFC 3339 in UTC with milliseconds; an invalid one does not throw. */
export function dateText(date: Date): string {
  return Number.isNaN(date.getTime()) ? 'Invalid Date' : date.toISOString()
}
