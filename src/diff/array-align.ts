import { dropCrossedAnchors } from './crossed-anchors.ts'
import { pairGap } from './gap-pairing.ts'
import { longestCommonSubsequence } from './myers.ts'
import { SKIPPED, type ComparedNode, type FilterStep } from './path-filter.ts'
import { elementHash, hashWholeString, type ElementHashOptions } from './element-hash.ts'

/**
 * In-order alignment of the differing middle of two arrays (docs/diff.md "Arrays
 * (sort_arrays = false)"): the longest common subsequence of element
 * hashes (element-hash.ts), then each gap between aligned elements paired
 * by pairGap.
 *
 * The result is a script of steps in live order, each three numbers
 * `[kind, liveIndex, shadowIndex]`:
 * - STEP_PAIR: diff `a[i]` against `b[j]` in place (equal or not);
 * - STEP_REMOVE: `a[i]` is only in live;
 * - STEP_ADD: `b[j]` is only in shadow.
 * Within a gap, removes come before the adds and pairs that follow them, so
 * the caller can keep one running index (see diff-walk.ts).
 */
export const STEP_PAIR = 0
export const STEP_REMOVE = 1
export const STEP_ADD = 2

/**
 * Work allowed per alignment before falling back to pairing by position:
 * Myers costs O((N+M)·D) time and, as written, O(D²) memory, so D is capped
 * by both (at most 2000 edits: 16 MB of saved diagonals).
 */
const ALIGNMENT_BUDGET = 4_000_000
const MAX_EDITS = 2000

export function alignMiddle(
  a: readonly unknown[],
  b: readonly unknown[],
  start: number,
  endA: number,
  endB: number,
  options: ElementHashOptions,
  node: ComparedNode,
  depth: number,
): number[] {
  const lengthA = endA - start
  const lengthB = endB - start
  const steps: number[] = []
  if (lengthA === 0 || lengthB === 0 || (lengthA === 1 && lengthB === 1)) {
    emitGap(steps, a, b, start, endA, start, endB)
    return steps
  }
  // Elements' own members first; read whole elements only when that leaves
  // too many look-alikes (wrappers such as `{"data": {...}}`).
  let hashesA = elementHashes(a, start, endA, options, node, depth, SHALLOW_LEVELS)
  let hashesB = elementHashes(b, start, endB, options, node, depth, SHALLOW_LEVELS)
  if (lookAlikes(hashesA) + lookAlikes(hashesB) > (lengthA + lengthB) / 8) {
    hashesA = elementHashes(a, start, endA, options, node, depth, DEEP_LEVELS)
    hashesB = elementHashes(b, start, endB, options, node, depth, DEEP_LEVELS)
  }
  const maxEdits = Math.min(
    MAX_EDITS,
    Math.max(64, Math.floor(ALIGNMENT_BUDGET / (lengthA + lengthB))),
  )
  let common: ReadonlyArray<readonly [number, number]> | undefined = longestCommonSubsequence(
    hashesA,
    hashesB,
    maxEdits,
  )
  // Too different to align within budget: one gap, paired by position.
  if (common === undefined) {
    emitGap(steps, a, b, start, endA, start, endB)
    return steps
  }
  if (options.tolerance > 0) {
    common = dropCrossedAnchors(common, a, b, start, lengthA, lengthB, depth + 1, options.tolerance)
  }
  let i = start
  let j = start
  for (const [x, y] of common) {
    emitGap(steps, a, b, i, start + x, j, start + y)
    steps.push(STEP_PAIR, start + x, start + y)
    i = start + x + 1
    j = start + y + 1
  }
  emitGap(steps, a, b, i, endA, j, endB)
  return steps
}

/** Container levels read for the first hashes: an element's own members. */
const SHALLOW_LEVELS = 1
/**
 * Levels read when the first hashes are not enough. Bounded so that
 * nested arrays of look-alikes cannot make every level re-read everything
 * below it.
 */
const DEEP_LEVELS = 8

/** How many hashes repeat an earlier one. */
function lookAlikes(hashes: Int32Array): number {
  if (hashes.length < 2) return 0
  const sorted = hashes.slice().sort()
  let repeats = 0
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) repeats++
  return repeats
}

function elementHashes(
  values: readonly unknown[],
  start: number,
  end: number,
  options: ElementHashOptions,
  node: ComparedNode,
  depth: number,
  levels: number,
): Int32Array {
  const out = new Int32Array(end - start)
  const filter = node === undefined ? undefined : options.filter
  for (let i = start; i < end; i++) {
    let child: FilterStep = undefined
    if (filter !== undefined) {
      child = filter.childIndex(node!, i)
      // Ignored elements all look alike; they align with anything.
      if (child === SKIPPED) continue
    }
    const value = values[i]
    out[i - start] =
      typeof value === 'string'
        ? hashWholeString(value)
        : elementHash(value, options, child, depth + 1, levels)
  }
  return out
}

function emitGap(
  steps: number[],
  a: readonly unknown[],
  b: readonly unknown[],
  startA: number,
  endA: number,
  startB: number,
  endB: number,
): void {
  if (startA === endA && startB === endB) return
  const pairs = pairGap(a.slice(startA, endA), b.slice(startB, endB))
  let j = startB
  for (let k = 0; k < pairs.length; k++) {
    const partner = pairs[k]!
    if (partner < 0) {
      steps.push(STEP_REMOVE, startA + k, -1)
      continue
    }
    while (j < startB + partner) steps.push(STEP_ADD, -1, j++)
    steps.push(STEP_PAIR, startA + k, j++)
  }
  while (j < endB) steps.push(STEP_ADD, -1, j++)
}
