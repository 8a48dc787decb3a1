import { childPointer, getAt } from './json-pointer.ts'
import { isJsonContainer } from '../../../src/diff/large-integer.ts'

/**
 * What the JSON tree (components/json-view.ts) shows first, so that a 1 MB
 * body opens as a summary: how many children per container, which
 * containers start open, how long a string may be before it is cut.
 */

/** Children rendered per container before a "show more" row. */
export const CHUNK = 100
/** Strings longer than this are cut until asked for. */
export const STRING_CUT = 300
/** Rows opened by default, breadth first, so a 1 MB body opens as a summary. */
export const OPEN_BUDGET = 200
/** Containers larger than this start collapsed (unless a diff is inside). */
export const AUTO_OPEN_MAX = 50
export const AUTO_OPEN_DEPTH = 3
/** Children first shown in a large container that was opened for a diff inside it. */
export const MARKED_CHUNK = 10
/** Marked rows forced past their container's chunk; more would defeat chunking. */
export const FORCED_MAX = 200

export type Container = Record<string, unknown> | unknown[]

export function isContainer(value: unknown): value is Container {
  // A large integer (JSON.rawJSON of its digits) is a leaf.
  return isJsonContainer(value)
}

/**
 * A large container opened only because a diff lies inside starts with a
 * few children (plus the marked ones): the diff is what matters there.
 */
export function shortLimits(value: unknown, ancestors: ReadonlySet<string>): Map<string, number> {
  const limits = new Map<string, number>()
  for (const p of ancestors) {
    const found = getAt(value, p)
    if (!found.found || !isContainer(found.value)) continue
    const size = Array.isArray(found.value) ? found.value.length : Object.keys(found.value).length
    if (size > CHUNK) limits.set(p, MARKED_CHUNK)
  }
  return limits
}

/**
 * Opens the root, the branches that lead to a diff, and then small
 * containers breadth first until about OPEN_BUDGET rows are showing.
 */
export function initialOpen(value: unknown, ancestors: ReadonlySet<string>): Set<string> {
  const open = new Set<string>(['', ...ancestors])
  let budget = OPEN_BUDGET
  let level: [unknown, string][] = [[value, '']]
  for (let depth = 0; depth <= AUTO_OPEN_DEPTH && level.length && budget > 0; depth++) {
    const next: [unknown, string][] = []
    for (const [v, p] of level) {
      if (!isContainer(v)) continue
      const size = Array.isArray(v) ? v.length : Object.keys(v).length
      if (depth > 0 && (size > AUTO_OPEN_MAX || size > budget)) continue
      const entries = Array.isArray(v) ? v.slice(0, CHUNK).map((x, i) => [i, x] as const) : Object.entries(v)
      open.add(p)
      budget -= Math.min(size, CHUNK)
      for (const [k, x] of entries.slice(0, CHUNK)) if (isContainer(x)) next.push([x, childPointer(p, k)])
    }
    level = next
  }
  return open
}

