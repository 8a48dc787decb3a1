import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { timedRequests, type TimedRequest } from './open-loop.ts'
import { largestClusters, largestShare, slowClusters, slowCount } from './slow-clusters.ts'

const at = (dueMs: number, latencyMs: number): TimedRequest => ({ dueMs, latencyMs })

describe('slow requests grouped by when they were due', () => {
  test('a stall makes one cluster; slow requests far apart make one each', () => {
    const requests = [at(0, 1), at(100, 12), at(101, 11), at(130, 9), at(131, 1), at(900, 20), at(2000, 1)]
    expect(slowClusters(requests, 8)).toEqual([
      { fromMs: 100, toMs: 130, requests: 3, maxLatencyMs: 12 },
      { fromMs: 900, toMs: 900, requests: 1, maxLatencyMs: 20 },
    ])
    const clusters = slowClusters(requests, 8)
    expect(slowCount(clusters)).toBe(4)
    expect(largestClusters(clusters, 1)).toEqual([clusters[0]!])
    expect(largestClusters(clusters, 5)).toHaveLength(2)
    expect(largestShare(clusters, 1)).toBe(0.75)
    expect(largestShare(slowClusters(requests, 100), 1)).toBe(0)
  })

  test('the gap is measured from the last slow request, not from the first of the cluster', () => {
    const chain = [at(0, 10), at(40, 10), at(80, 10), at(120, 10)]
    expect(slowClusters(chain, 5, 50)).toHaveLength(1)
    expect(slowClusters(chain, 5, 30)).toHaveLength(4)
  })

  test('every slow request lands in exactly one cluster, in order, whatever the input order', () => {
    const request = fc.record({ dueMs: fc.integer({ min: 0, max: 10_000 }), latencyMs: fc.integer({ min: 0, max: 50 }) })
    fc.assert(
      fc.property(fc.array(request, { maxLength: 300 }), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 200 }), (requests, threshold, gap) => {
        const clusters = slowClusters(requests, threshold, gap)
        const slow = requests.filter((r) => r.latencyMs > threshold)
        expect(slowCount(clusters)).toBe(slow.length)
        for (const [i, c] of clusters.entries()) {
          expect(c.fromMs).toBeLessThanOrEqual(c.toMs)
          // Clusters are apart by more than the gap, so no two could be one.
          if (i > 0) expect(c.fromMs - clusters[i - 1]!.toMs).toBeGreaterThan(gap)
          const inside = slow.filter((r) => r.dueMs >= c.fromMs && r.dueMs <= c.toMs)
          expect(inside).toHaveLength(c.requests)
          expect(Math.max(...inside.map((r) => r.latencyMs))).toBe(c.maxLatencyMs)
        }
        const share = largestShare(clusters, 1)
        expect(share).toBeGreaterThanOrEqual(0)
        expect(share).toBeLessThanOrEqual(1)
      }),
    )
  })
})

describe("the generator's latency lines", () => {
  test('are read in order of when each request was due, however they were answered', () => {
    expect(timedRequests('5.5 1.25\n0.000 3.5\n\n2 0.5\n')).toEqual([at(0, 3.5), at(2, 0.5), at(5.5, 1.25)])
  })
})
