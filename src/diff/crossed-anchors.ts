import { equalWithin } from './deep-equal.ts'

type Anchor = readonly [number, number]

/**
 * With a float tolerance, numbers hash by tolerance-wide bucket
 * (element-hash.ts), and two near-equal numbers on either side of a bucket edge
 * hash apart. The alignment can then anchor elements to their neighbours'
 * partners: `["a", 1, 0, "b"]` against `["c", 1.9, -0.4, "d"]` with t = 2
 * anchors 0 to 1.9 and reports an add and a remove for numbers that are all
 * within the tolerance.
 *
 * Such a run of anchors starts after a gap with an extra element on one
 * side and ends before a gap with an extra element on the other, so the
 * stretch from the previous kept anchor to the anchor after the run is
 * balanced and has a single pairing by position. When that pairing has
 * more pairs equal within the tolerance than the run has anchors, the run
 * is dropped and the stretch becomes one gap, paired by position.
 *
 * `common` holds `[x, y]` offsets from `start`, as the alignment returns
 * them. Stretches longer than MAX_STRETCH are left as aligned, so the check
 * stays local: at most MAX_STRETCH equality tests per anchor.
 */
export function dropCrossedAnchors(
  common: readonly Anchor[],
  a: readonly unknown[],
  b: readonly unknown[],
  start: number,
  lengthA: number,
  lengthB: number,
  depth: number,
  tolerance: number,
): Anchor[] {
  const sides: Sides = { a, b, start, end: [lengthA, lengthB], depth, tolerance }
  const kept: Anchor[] = []
  let k = 0
  while (k < common.length) {
    const previous: Anchor = kept.length > 0 ? kept[kept.length - 1]! : [-1, -1]
    const [x, y] = common[k]!
    const last =
      x - previous[0] === y - previous[1] ? -1 : crossedRunEnd(common, k, previous, sides)
    if (last < 0) {
      kept.push(common[k]!)
      k++
    } else {
      k = last + 1
    }
  }
  return kept
}

interface Sides {
  readonly a: readonly unknown[]
  readonly b: readonly unknown[]
  readonly start: number
  readonly end: Anchor
  readonly depth: number
  readonly tolerance: number
}

/**
 * The last anchor of a run from `first` worth dropping, or -1: the run ends
 * at the first anchor after which the stretch from `previous` is balanced.
 */
function crossedRunEnd(
  common: readonly Anchor[],
  first: number,
  previous: Anchor,
  { a, b, start, end, depth, tolerance }: Sides,
): number {
  let equalByPosition = 0
  let compared = 0
  for (let m = first; m < common.length; m++) {
    const next = m + 1 < common.length ? common[m + 1]! : end
    const stretchA = next[0] - previous[0] - 1
    const stretchB = next[1] - previous[1] - 1
    if (stretchA > MAX_STRETCH || stretchB > MAX_STRETCH) return -1
    // Position pairs the same elements whatever the run's end, so the count
    // only grows.
    for (; compared < Math.min(stretchA, stretchB); compared++) {
      const left = a[start + previous[0] + 1 + compared]
      const right = b[start + previous[1] + 1 + compared]
      if (left === right || equalWithin(left, right, depth, PAIR_BUDGET, tolerance) === true) {
        equalByPosition++
      }
    }
    if (stretchA === stretchB) return equalByPosition > m - first + 1 ? m : -1
  }
  return -1
}

/** Longest stretch, in elements of either side, re-paired by position. */
const MAX_STRETCH = 64
/** Nodes one equality test of the re-pairing may visit. */
const PAIR_BUDGET = 1024
