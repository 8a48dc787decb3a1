import { errorText } from './error-text.ts'

/**
 * JSON text for any value, never throwing: a circular reference becomes
 * `"[Circular]"`, a BigInt its decimal string, an Error its message, a Map an
 * object, a Set an array, and binary data (`Uint8Array`, `ArrayBuffer`) only
 * its length, so a request body never lands in a log line by accident.
 * Anything JSON cannot express at the top level gives `null`.
 */
export function safeJsonStringify(value: unknown): string {
  try {
    // Plain data (a JSON Patch, say) goes to the native serialiser as is: a
    // replacer makes it ~6x slower, and a proxy may log a diff per request.
    if (isPlainData(value, 0)) return JSON.stringify(value) ?? 'null'
    return JSON.stringify(value, circularSafeReplacer()) ?? 'null'
  } catch (error) {
    // Throwing getters, proxies and stack overflows on absurd nesting end here.
    return JSON.stringify(`[unserializable: ${error instanceof Error ? error.message : 'unknown'}]`)
  }
}

/** The value to log in place of an object JSON would render badly, or `undefined` to keep it. */
export function specialObjectText(value: object): string | undefined {
  if (value instanceof Error) return errorText(value)
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer)
    return `[${value.byteLength} bytes]`
  return undefined
}

/** Deeper than this, plain data is treated as possibly circular and takes the careful path. */
const MAX_PLAIN_DEPTH = 32

/** Whether JSON.stringify renders the value well as it is: plain objects, arrays, primitives, no BigInt. */
function isPlainData(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'bigint'
  if (depth > MAX_PLAIN_DEPTH) return false
  if (Array.isArray(value)) {
    for (const item of value) if (!isPlainData(item, depth + 1)) return false
    return true
  }
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return false
  const record = value as Record<string, unknown>
  for (const key in record) if (!isPlainData(record[key], depth + 1)) return false
  return true
}

/** Objects nested deeper than this are cut: no log line needs them, and the walk stays bounded. */
const MAX_DEPTH = 100

function circularSafeReplacer() {
  // The chain of objects from the root to the one being serialised (MDN's
  // technique): a value already on it is a cycle; a value seen on another
  // branch is just shared, and is printed again. The Set mirrors the chain
  // for constant-time lookups (each object is on it at most once).
  const ancestors: unknown[] = []
  const onChain = new Set<unknown>()
  const converted = new Map<object, unknown>()
  return function replacer(this: unknown, key: string, value: unknown): unknown {
    if (typeof value === 'bigint') return value.toString()
    // `value` has been through toJSON already (a Buffer is {type, data}); look at the original.
    const original = (this as Record<string, unknown>)[key]
    if (typeof original === 'object' && original !== null) {
      const text = specialObjectText(original)
      if (text !== undefined) return text
    }
    if (typeof value !== 'object' || value === null) return value
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) {
      onChain.delete(ancestors.pop())
    }
    if (ancestors.length >= MAX_DEPTH) return '[Too deep]'
    let out: unknown = value
    if (value instanceof Map || value instanceof Set) {
      // Reuse one conversion per collection, so a collection holding itself is seen as a cycle.
      out = converted.get(value)
      if (out === undefined) {
        out = value instanceof Map ? Object.fromEntries(value) : [...value]
        converted.set(value, out)
      }
    }
    if (onChain.has(out)) return '[Circular]'
    ancestors.push(out)
    onChain.add(out)
    return out
  }
}
