import { nestsDeeperThan } from './nesting.ts'

/**
 * JSON serialisation that cannot overflow the stack. JSON.parse in Bun
 * accepts a million levels of nesting, but JSON.stringify slows down
 * sharply past a few tens of thousands of levels (measured on Bun 1.4:
 * 20,000 levels 5 ms, 32,000 levels 4.5 s) and throws a RangeError further
 * on. Storage of a redacted body and the text comparison of subtrees past
 * MAX_COMPARE_DEPTH therefore use this writer when the value is deep.
 */

type Frame =
  | { kind: 'array'; value: unknown[]; index: number }
  | { kind: 'object'; value: Record<string, unknown>; keys: string[]; index: number }

/**
 * Serialises a JSON value iteratively. With `sortKeys`, object keys are
 * written in code-unit order: the canonical text used to compare subtrees
 * regardless of key order. Values JSON has no text for (undefined,
 * functions) are skipped in objects and written `null` in arrays, as
 * JSON.stringify does.
 */
export function jsonText(value: unknown, sortKeys = false): string {
  const parts: string[] = []
  const stack: Frame[] = []
  let next: unknown = value
  let pending = true
  for (;;) {
    if (pending) {
      pending = false
      if (typeof next === 'object' && next !== null) {
        if (Array.isArray(next)) {
          parts.push('[')
          stack.push({ kind: 'array', value: next, index: 0 })
        } else {
          const object = next as Record<string, unknown>
          const keys = Object.keys(object).filter((key) => isWritable(object[key]))
          if (sortKeys) keys.sort()
          parts.push('{')
          stack.push({ kind: 'object', value: object, keys, index: 0 })
        }
      } else {
        parts.push(isWritable(next) ? JSON.stringify(next) : 'null')
      }
    }
    const frame = stack[stack.length - 1]
    if (frame === undefined) break
    if (frame.kind === 'array') {
      if (frame.index >= frame.value.length) {
        parts.push(']')
        stack.pop()
        continue
      }
      if (frame.index > 0) parts.push(',')
      next = frame.value[frame.index++]
    } else {
      if (frame.index >= frame.keys.length) {
        parts.push('}')
        stack.pop()
        continue
      }
      const key = frame.keys[frame.index++]!
      parts.push((frame.index > 1 ? ',' : '') + JSON.stringify(key) + ':')
      next = frame.value[key]
    }
    pending = true
  }
  return parts.join('')
}

/** Nesting JSON.stringify handles quickly; deeper values go to the iterative writer. */
const NATIVE_DEPTH = 1000

/** JSON.stringify for ordinary values, the iterative writer for deep ones. */
export function stringifyJson(value: unknown): string {
  return nestsDeeperThan(value, NATIVE_DEPTH) ? jsonText(value) : JSON.stringify(value)
}

function isWritable(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol'
}
