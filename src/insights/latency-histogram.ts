/**
 * The fixed latency buckets of the endpoint rollups (docs/storage.md
 * "Insight rollups"), and the percentiles read back from them.
 *
 * A bucket is a range of whole milliseconds: `0`, then one per
 * millisecond up to 7, then ranges that grow by 2^(1/3) (about 26 %) from
 * 8 ms up to 65,536 ms, and a last one for everything slower. A
 * percentile is reported as the geometric middle of the bucket that holds
 * it (exact below 8 ms), so it is within 12.5 % of the exact nearest-rank
 * percentile up to 65,535 ms (latency-histogram.test.ts checks every
 * millisecond); the last bucket reports its lower bound, 65,536.
 *
 * The database computes a latency's bucket with `latency_bucket()`
 * (sql/0004_insights.sql) from the same thresholds; a test keeps the two
 * equal.
 */
export const LATENCY_THRESHOLDS_MS = [
  1, 2, 3, 4, 5, 6, 7, 8, 10, 13, 16, 20, 25, 32, 40, 51, 64, 81, 102, 128, 161, 203, 256, 323, 406, 512, 645,
  813, 1024, 1290, 1625, 2048, 2580, 3251, 4096, 5161, 6502, 8192, 10321, 13004, 16384, 20643, 26008, 32768,
  41285, 52016, 65536,
] as const

/** Buckets per side: one below the first threshold, one from each threshold on. */
export const LATENCY_BUCKETS = LATENCY_THRESHOLDS_MS.length + 1

/** The bucket of a latency: the number of thresholds at or below it (PostgreSQL's width_bucket). */
export function latencyBucket(ms: number): number {
  let lo = 0
  let hi: number = LATENCY_THRESHOLDS_MS.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (LATENCY_THRESHOLDS_MS[mid]! <= ms) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The value a bucket reports: its only value, the geometric middle of its range, or the last bucket's lower bound. */
export function bucketValue(bucket: number): number {
  if (bucket <= 0) return 0
  const lo = LATENCY_THRESHOLDS_MS[bucket - 1]!
  const next = LATENCY_THRESHOLDS_MS[bucket]
  if (next === undefined) return lo
  return Math.round(Math.sqrt(lo * (next - 1)))
}

/**
 * The nearest-rank `q` percentile (0 < q <= 1) of the latencies counted in
 * `counts` (one count per bucket), as its bucket reports it; null when
 * nothing is counted.
 */
export function histogramPercentile(counts: readonly number[], q: number): number | null {
  let total = 0
  for (const count of counts) total += count
  if (total <= 0) return null
  const rank = Math.max(1, Math.ceil(q * total))
  let seen = 0
  for (let bucket = 0; bucket < counts.length; bucket++) {
    seen += counts[bucket]!
    if (seen >= rank) return bucketValue(bucket)
  }
  return bucketValue(counts.length - 1)
}
