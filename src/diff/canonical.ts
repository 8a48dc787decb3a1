import { isLargeInteger } from './large-integer.ts'
import { MAX_COMPARE_DEPTH } from './depth-limit.ts'
import { jsonText } from './json-text.ts'
import { setOwn } from './own-property.ts'
import { SKIPPED, type FilterStep, type PathFilter } from './path-filter.ts'

/**
 * sort_arrays=true (docs/diff.md "float_tolerance, sort_arrays"): every array on both sides
 * is sorted into one canonical order before comparison, nested arrays
 * included, so element order never produces a diff.
 *
 * The order: null < booleans < numbers < strings < arrays < objects; numbers
 * by value (near-equal numbers stay neighbours for float_tolerance), strings
 * by code unit, containers by their canonical text (keys sorted, arrays
 * already sorted). Ignored and not-included members do not count towards
 * that text, so two elements that differ only in ignored fields sort alike.
 * Returns sorted copies; the inputs are not modified.
 */
export function sortArraysDeep(value: unknown, filter: PathFilter | undefined): unknown {
  return canonicalize(value, filter === undefined ? undefined : filter.root, filter, 0).value
}

interface Canonical {
  value: unknown
  /** Canonical JSON text of the compared parts. */
  text: string
  rank: number
}

const RANK_NULL = 0
const RANK_BOOLEAN = 1
const RANK_NUMBER = 2
const RANK_STRING = 3
const RANK_ARRAY = 4
const RANK_OBJECT = 5

function canonicalize(
  value: unknown,
  node: FilterStep,
  filter: PathFilter | undefined,
  depth: number,
): Canonical {
  if (isLargeInteger(value)) return { value, text: value.rawJSON, rank: RANK_NUMBER }
  switch (typeof value) {
    case 'number':
      return { value, text: JSON.stringify(value), rank: RANK_NUMBER }
    case 'string':
      return { value, text: JSON.stringify(value), rank: RANK_STRING }
    case 'boolean':
      return { value, text: value ? 'true' : 'false', rank: RANK_BOOLEAN }
  }
  if (typeof value !== 'object' || value === null) return { value, text: 'null', rank: RANK_NULL }
  const isArray = Array.isArray(value)
  // Past the bound the subtree is compared as text, in the order it has.
  if (depth >= MAX_COMPARE_DEPTH) {
    return { value, text: jsonText(value, true), rank: isArray ? RANK_ARRAY : RANK_OBJECT }
  }
  const free = node === undefined || node === SKIPPED || filter === undefined
  if (isArray) {
    const items = value.map((item, i) => {
      const child = free ? undefined : filter.childIndex(node, i)
      return canonicalize(item, child === SKIPPED ? undefined : child, filter, depth + 1)
    })
    items.sort(compareCanonical)
    return {
      value: items.map((item) => item.value),
      text: '[' + items.map((item) => item.text).join(',') + ']',
      rank: RANK_ARRAY,
    }
  }
  const object = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  const parts: string[] = []
  for (const key of Object.keys(object).sort()) {
    const child = free ? undefined : filter.child(node, key)
    const canonical = canonicalize(
      object[key],
      child === SKIPPED ? undefined : child,
      filter,
      depth + 1,
    )
    setOwn(out, key, canonical.value)
    if (child !== SKIPPED) parts.push(JSON.stringify(key) + ':' + canonical.text)
  }
  return { value: out, text: '{' + parts.join(',') + '}', rank: RANK_OBJECT }
}

/** Numbers in order, large integers (large-integer.ts) among them by value. */
function numberOrder(x: unknown, y: unknown): number {
  const order = numberOf(x) - numberOf(y)
  if (order !== 0 || !isLargeInteger(x) || !isLargeInteger(y)) return order
  const exact = BigInt(x.rawJSON) - BigInt(y.rawJSON)
  return exact < 0n ? -1 : exact > 0n ? 1 : 0
}

function numberOf(value: unknown): number {
  return isLargeInteger(value) ? Number(value.rawJSON) : (value as number)
}

function compareCanonical(x: Canonical, y: Canonical): number {
  if (x.rank !== y.rank) return x.rank - y.rank
  switch (x.rank) {
    case RANK_NUMBER:
      return numberOrder(x.value, y.value)
    case RANK_STRING:
    case RANK_BOOLEAN:
      return x.value === y.value ? 0 : (x.value as string) < (y.value as string) ? -1 : 1
    case RANK_NULL:
      return 0
    default:
      return x.text === y.text ? 0 : x.text < y.text ? -1 : 1
  }
}
