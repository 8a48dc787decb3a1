import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import {
  bucketValue,
  histogramPercentile,
  LATENCY_BUCKETS,
  LATENCY_THRESHOLDS_MS,
  latencyBucket,
} from '../../../src/insights/latency-histogram.ts'

/** The bound docs/storage.md states. */
const BOUND = 0.125
const LAST = LATENCY_THRESHOLDS_MS[LATENCY_THRESHOLDS_MS.length - 1]!

describe('latency buckets', () => {
  test('thresholds rise strictly; 0 ms has a bucket of its own, everything from 65,536 ms the last', () => {
    for (let i = 1; i < LATENCY_THRESHOLDS_MS.length; i++) expect(LATENCY_THRESHOLDS_MS[i]!).toBeGreaterThan(LATENCY_THRESHOLDS_MS[i - 1]!)
    expect([latencyBucket(0), latencyBucket(1), latencyBucket(7), latencyBucket(8), latencyBucket(9)]).toEqual([0, 1, 7, 8, 8])
    expect([latencyBucket(LAST - 1), latencyBucket(LAST), latencyBucket(10 ** 9)]).toEqual([LATENCY_BUCKETS - 2, LATENCY_BUCKETS - 1, LATENCY_BUCKETS - 1])
  })

  test(`every latency up to ${LAST - 1} ms reads back within 12.5 % (exact below 8 ms)`, () => {
    let worst = 0
    for (let ms = 0; ms < LAST; ms++) {
      const value = bucketValue(latencyBucket(ms))
      if (ms < 8) expect(value).toBe(ms)
      else worst = Math.max(worst, Math.abs(value - ms) / ms)
    }
    expect(worst).toBeLessThanOrEqual(BOUND)
    expect(bucketValue(latencyBucket(10 ** 6))).toBe(LAST)
  })
})

describe('histogramPercentile', () => {
  const histogram = (values: number[]) => {
    const counts = new Array<number>(LATENCY_BUCKETS).fill(0)
    for (const v of values) counts[latencyBucket(v)]!++
    return counts
  }
  const nearestRank = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.max(1, Math.ceil(q * values.length)) - 1]!

  test('nothing counted: null', () => {
    expect(histogramPercentile(new Array(LATENCY_BUCKETS).fill(0), 0.5)).toBeNull()
  })

  test('the nearest-rank percentile of any latencies, within the bound', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: LAST - 1 }), { minLength: 1, maxLength: 300 }), fc.constantFrom(0.5, 0.95, 0.99, 1), (values, q) => {
        const exact = nearestRank(values, q)
        expect(Math.abs(histogramPercentile(histogram(values), q)! - exact)).toBeLessThanOrEqual(BOUND * exact)
      }),
    )
  })
})
