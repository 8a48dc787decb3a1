/**
 * JSON serialisation that cannot overflow the stack. JSON.parse in Bun
 * accepts a million levels of nesting but JSON.stringify throws a
 * RangeError near 100,000 (measured on Bun 1.4), so text that was parsed
 * must be serialisable without recursion: storage of a redacted body and the
 * text comparison of subtrees past MAX_COMPARE_DEPTH use this.
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

/** JSON.stringify when it can, the iterative writer when the value is too deep for it. */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch (error) {
    if (error instanceof RangeError) return jsonText(value)
    throw error
  }
}

function isWritable(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol'
}
