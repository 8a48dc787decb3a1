import { dateText, forEachAttr, type LogAttrs, type RecordFormat } from './record-format.ts'
import { safeJsonStringify, specialObjectText } from './safe-json.ts'

/**
 * One value as JSON. JSON has no NaN, Infinity or BigInt: they are written
 * as strings (`"NaN"`, `"123456789012345678901"`), so no digit is lost to a
 * reader's float64.
 */
export function jsonValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'number':
      return Number.isFinite(value) ? String(value) : `"${value}"`
    case 'boolean':
      return String(value)
    case 'bigint':
      return `"${value}"`
    case 'symbol':
      return JSON.stringify(value.toString())
    case 'function':
      return JSON.stringify(`[function ${value.name || 'anonymous'}]`)
    case 'undefined':
      return 'null'
    case 'object': {
      if (value === null) return 'null'
      if (value instanceof Date) return JSON.stringify(dateText(value))
      const special = specialObjectText(value)
      return special === undefined ? safeJsonStringify(value) : JSON.stringify(special)
    }
  }
  return JSON.stringify(String(value))
}

/**
 * `{"time":...,"level":"INFO","msg":...,...attrs}`, as Go's slog.JSONHandler
 * writes it. Keys stay flat as given (`"request.id"`), not nested. A key
 * given twice (a child's and a record's) is written twice; JSON readers keep
 * the last, the record's.
 */
export const jsonFormat: RecordFormat = {
  attrs(attrs: LogAttrs, withStacks: boolean): string {
    let out = ''
    forEachAttr(attrs, withStacks, (key, value) => {
      out += `,${JSON.stringify(key)}:${jsonValue(value)}`
    })
    return out
  },
  line(time, level, msg, fragment) {
    return `{"time":"${time}","level":"${level}","msg":${JSON.stringify(msg)}${fragment}}`
  },
}
