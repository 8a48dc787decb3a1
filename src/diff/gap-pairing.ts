/**
 * Pairing inside one gap of the array alignment: a stretch of live elements
 * and a stretch of shadow elements between two aligned elements, none of
 * them equal. Unaligned elements at the same gap are diffed recursively
 * (objects with objects, arrays with arrays), otherwise replaced, removed or
 * added (docs/diff.md "Arrays (sort_arrays = false)").
 *
 * As many elements as possible are paired (a pair costs fewer operations
 * than a remove and an add). When the stretches differ in length, which
 * elements stay unpaired is chosen by a small dynamic programme that
 * maximises how alike the paired elements are, so a record inserted next to
 * a modified record is one `add`, not a diff against the wrong neighbour.
 */

/** A gap's pairing: `pairs[k]` is the shadow offset paired with live offset k, or -1. */
export function pairGap(live: readonly unknown[], shadow: readonly unknown[]): Int32Array {
  const p = live.length
  const q = shadow.length
  const pairs = new Int32Array(p).fill(-1)
  if (p === 0 || q === 0) return pairs
  if (p === q || p * q > MAX_PAIRING_CELLS) {
    // Equal stretches have a single full order-preserving pairing; too large
    // a gap is paired from its start rather than searched.
    for (let k = 0; k < Math.min(p, q); k++) pairs[k] = k
    return pairs
  }
  const liveIsShort = p < q
  const short = liveIsShort ? live : shadow
  const long = liveIsShort ? shadow : live
  const s = short.length
  const l = long.length
  // best[i * (l + 1) + j]: most similarity pairing the first i short
  // elements with i of the first j long elements (j >= i).
  const width = l + 1
  const best = new Float64Array((s + 1) * width)
  for (let i = 1; i <= s; i++) {
    best[i * width + i - 1] = -Infinity
    for (let j = i; j <= l; j++) {
      const paired = best[(i - 1) * width + j - 1]! + similarity(short[i - 1], long[j - 1])
      const skipped = j > i ? best[i * width + j - 1]! : -Infinity
      best[i * width + j] = paired > skipped ? paired : skipped
    }
  }
  // Walk back; on a tie leave the later long element unpaired, so pairs
  // gather at the start of the gap as a positional pairing would.
  let j = l
  for (let i = s; i > 0; j--) {
    if (j > i && best[i * width + j] === best[i * width + j - 1]) continue
    if (liveIsShort) pairs[i - 1] = j - 1
    else pairs[j - 1] = i - 1
    i--
  }
  return pairs
}

/** Gaps up to this many live x shadow cells are searched for the best pairing. */
const MAX_PAIRING_CELLS = 4096

/**
 * How alike two elements look at their top level: the number of members
 * (or positions) holding the same primitive value. Shallow on purpose: it
 * only has to tell a modified record from an unrelated one.
 */
export function similarity(x: unknown, y: unknown): number {
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) {
    return x === y ? 1 : 0
  }
  let same = 0
  if (Array.isArray(x)) {
    if (!Array.isArray(y)) return 0
    const length = Math.min(x.length, y.length)
    for (let i = 0; i < length; i++) if (x[i] === y[i] && typeof x[i] !== 'object') same++
    return same
  }
  if (Array.isArray(y)) return 0
  const a = x as Record<string, unknown>
  const b = y as Record<string, unknown>
  for (const key in a) {
    const value = a[key]
    if (value === b[key] && typeof value !== 'object') same++
  }
  return same
}
