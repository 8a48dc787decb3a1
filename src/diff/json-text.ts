import { isJsonContainer } from './large-integer.ts'
import { nestsDeeperThan } from './nesting.ts'
import { SKIPPED, type ComparedNode, type FilterStep, type PathFilter } from './path-filter.ts'

/**
 * JSON serialisation that cannot overflow the stack. JSON.parse in Bun
 * accepts a million levels of nesting, but JSON.stringify slows down
 * sharply past a few tens of thousands of levels (measured on Bun 1.4:
 * 20,000 levels 5 ms, 32,000 levels 4.5 s) and throws a RangeError further
 * on. Storage of a redacted body and the text comparison of subtrees past
 * MAX_COMPARE_DEPTH therefore use this writer when the value is deep.
 */

interface Frame {
  readonly array: unknown[] | undefined
  readonly object: Record<string, unknown> | undefined
  readonly keys: string[] | undefined
  readonly node: ComparedNode
  index: number
  written: number
}

/**
 * Serialises a JSON value iteratively. With `sortKeys`, object keys are
 * written in code-unit order: the canonical text used to compare subtrees
 * regardless of key order. With a `filter`, members and elements it skips
 * (ignored, redacted, not included) are left out, starting from `node`.
 * Values JSON has no text for (undefined, functions) are skipped in objects
 * and written `null` in arrays, as JSON.stringify does.
 */
export function jsonText(
  value: unknown,
  sortKeys = false,
  filter?: PathFilter,
  node?: ComparedNode,
): string {
  const parts: string[] = []
  const stack: Frame[] = []
  let next: unknown = value
  let nextNode: ComparedNode = filter === undefined ? undefined : node
  for (;;) {
    // A large integer (large-integer.ts) is a leaf JSON.stringify writes as its digits.
    if (isJsonContainer(next)) {
      if (Array.isArray(next)) {
        parts.push('[')
        stack.push({
          array: next,
          object: undefined,
          keys: undefined,
          node: nextNode,
          index: 0,
          written: 0,
        })
      } else {
        const object = next as Record<string, unknown>
        const keys = Object.keys(object).filter((key) => isWritable(object[key]))
        if (sortKeys) keys.sort()
        parts.push('{')
        stack.push({ array: undefined, object, keys, node: nextNode, index: 0, written: 0 })
      }
    } else {
      parts.push(isWritable(next) ? JSON.stringify(next) : 'null')
    }
    // Find the next value to write, closing finished containers.
    let found = false
    while (!found) {
      const frame = stack[stack.length - 1]
      if (frame === undefined) return parts.join('')
      const length = frame.array !== undefined ? frame.array.length : frame.keys!.length
      if (frame.index >= length) {
        parts.push(frame.array !== undefined ? ']' : '}')
        stack.pop()
        continue
      }
      const at = frame.index++
      const key = frame.array !== undefined ? undefined : frame.keys![at]!
      let child: FilterStep = undefined
      if (frame.node !== undefined) {
        child =
          key === undefined ? filter!.childIndex(frame.node, at) : filter!.child(frame.node, key)
        if (child === SKIPPED) continue
      }
      const separator = frame.written++ > 0 ? ',' : ''
      parts.push(key === undefined ? separator : separator + JSON.stringify(key) + ':')
      next = key === undefined ? frame.array![at] : frame.object![key]
      nextNode = child
      found = true
    }
  }
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
