import { isLargeInteger, sameLargeNumber } from './large-integer.ts'
import { MAX_COMPARE_DEPTH } from './depth-limit.ts'

/**
 * Exact structural equality of two JSON values: the fast path taken before
 * any diff work, so it is written for speed. Key order does not matter;
 * `-0` equals `0` as in JSON text. Recursion is bounded by
 * MAX_COMPARE_DEPTH; deeper subtrees are finished by an iterative walk.
 */
export function deepEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  // A large integer (large-integer.ts) is an object of one member, `rawJSON`: never equal to a body's own such object.
  if (isLargeInteger(a) !== isLargeInteger(b)) return false
  if (depth >= MAX_COMPARE_DEPTH) return iterativeEqual(a, b)
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return false
    const length = a.length
    if (length !== b.length) return false
    for (let i = 0; i < length; i++) {
      const x = a[i]
      const y = b[i]
      if (x !== y && !deepEqual(x, y, depth + 1)) return false
    }
    return true
  }
  if (Array.isArray(b)) return false
  return objectsEqual(a as Record<string, unknown>, b as Record<string, unknown>, depth)
}

function objectsEqual(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  depth: number,
): boolean {
  let count = 0
  for (const key in a) {
    const y = b[key]
    // A JSON value is never undefined, so undefined means "absent". An
    // inherited member (`toString`) is a function and never equals a JSON
    // value; only `__proto__` reads as an object, so it needs hasOwn.
    if (y === undefined || (key === '__proto__' && !Object.hasOwn(b, key))) return false
    const x = a[key]
    if (x !== y && !deepEqual(x, y, depth + 1)) return false
    count++
  }
  for (const _ in b) count--
  return count === 0
}

/** The same equality with an explicit stack, for subtrees past the depth bound. */
export function iterativeEqual(a: unknown, b: unknown): boolean {
  const stack: unknown[] = [a, b]
  while (stack.length > 0) {
    const y = stack.pop()
    const x = stack.pop()
    if (x === y) continue
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false
    if (isLargeInteger(x) !== isLargeInteger(y)) return false
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) stack.push(x[i], y[i])
      continue
    }
    if (Array.isArray(y)) return false
    const xs = x as Record<string, unknown>
    const ys = y as Record<string, unknown>
    let count = 0
    for (const key in xs) {
      if (!Object.hasOwn(ys, key)) return false
      stack.push(xs[key], ys[key])
      count++
    }
    for (const _ in ys) count--
    if (count !== 0) return false
  }
  return true
}

let budget = 0
let tolerance = 0

/**
 * deepEqual that gives up after visiting `nodes` nodes: true or false when
 * it could tell, undefined when the values are too large to tell cheaply.
 * Numbers at most `floatTolerance` apart count as equal, as the diff walk
 * counts them. The array trimming uses it, so that an element which differs
 * deep inside is not walked in full once per level on the way down to the
 * difference (a chain of one-element arrays would otherwise cost depth ×
 * size), and so that arrays whose numbers all moved within the tolerance
 * are trimmed whole instead of aligned by tolerance buckets, which a number
 * near a bucket edge can misalign.
 */
export function equalWithin(
  a: unknown,
  b: unknown,
  depth: number,
  nodes: number,
  floatTolerance: number,
): boolean | undefined {
  budget = nodes
  tolerance = floatTolerance
  const equal = boundedEqual(a, b, depth)
  return budget < 0 ? undefined : equal
}

function boundedEqual(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true
  if (isLargeInteger(a) || isLargeInteger(b)) return sameLargeNumber(a, b, tolerance)
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return tolerance > 0 && withinTolerance(a, b)
  }
  if (--budget < 0 || depth >= MAX_COMPARE_DEPTH) {
    budget = -1
    return false
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) {
      const x = a[i]
      const y = b[i]
      if (x !== y && !boundedEqual(x, y, depth + 1)) return false
    }
    return true
  }
  if (Array.isArray(b)) return false
  const x = a as Record<string, unknown>
  const y = b as Record<string, unknown>
  let count = 0
  for (const key in x) {
    const value = y[key]
    if (value === undefined || (key === '__proto__' && !Object.hasOwn(y, key))) return false
    const own = x[key]
    if (own !== value && !boundedEqual(own, value, depth + 1)) return false
    budget--
    count++
  }
  for (const _ in y) count--
  return count === 0
}

function withinTolerance(a: unknown, b: unknown): boolean {
  return typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= tolerance
}
