import { dateText, forEachAttr, type LogAttrs, type RecordFormat } from './record-format.ts'
import { safeJsonStringify, specialObjectText } from './safe-json.ts'

/**
 * slog's TextHandler quotes a string when it is empty or holds a space, `=`,
 * `"` or a character that does not print; so do we: any whitespace, `=`,
 * `"`, or a Unicode "Other" (control, format, unassigned, surrogate).
 */
const NEEDS_QUOTING = /[\s"=\p{C}]/u

/** A key or string value, quoted and escaped (JSON string rules) when it needs it. */
export function textString(text: string): string {
  return text === '' || NEEDS_QUOTING.test(text) ? JSON.stringify(text) : text
}

/** One value in text format; objects and arrays as JSON, quoted. */
export function textValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return textString(value)
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value)
    case 'undefined':
      return 'undefined'
    case 'symbol':
      return textString(value.toString())
    case 'function':
      return textString(`[function ${value.name || 'anonymous'}]`)
    case 'object':
      if (value === null) return 'null'
      if (value instanceof Date) return textString(dateText(value))
      return textString(specialObjectText(value) ?? safeJsonStringify(value))
  }
  return textString(String(value))
}

/** `time=... level=INFO msg="..." key=value ...`, as Go's slog.TextHandler writes it. */
export const textFormat: RecordFormat = {
  attrs(attrs: LogAttrs, withStacks: boolean): string {
    let out = ''
    forEachAttr(attrs, withStacks, (key, value) => {
      out += ` ${textString(key)}=${textValue(value)}`
    })
    return out
  },
  line(time, level, msg, fragment) {
    return `time=${time} level=${level} msg=${textString(msg)}${fragment}`
  },
}
