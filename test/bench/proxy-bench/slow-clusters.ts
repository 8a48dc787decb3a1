/**
 * The slow requests of an open loop, grouped by when they were due. A
 * stall (a full collection, a thread waiting for a core, a backlog being
 * worked off) delays every request due while it lasts, so its slow
 * requests come together; work that is slow for every request spreads
 * them over the run. A p99 made by a few clusters is a stall to trace,
 * not a cost per request (docs/proxy.md "The open loop's tail").
 */
import type { TimedRequest } from './open-loop.ts'

export interface SlowCluster {
  /** When its first and last slow request were due, ms from the start of the run. */
  readonly fromMs: number
  readonly toMs: number
  /** How many slow requests it holds. */
  readonly requests: number
  readonly maxLatencyMs: number
}

/**
 * The requests slower than `thresholdMs`, grouped while each was due
 * within `gapMs` of the slow one before it; in order of time.
 */
export function slowClusters(requests: readonly TimedRequest[], thresholdMs: number, gapMs = 50): SlowCluster[] {
  const slow = requests.filter((r) => r.latencyMs > thresholdMs).sort((a, b) => a.dueMs - b.dueMs)
  const clusters: { fromMs: number; toMs: number; requests: number; maxLatencyMs: number }[] = []
  for (const r of slow) {
    const last = clusters[clusters.length - 1]
    if (last !== undefined && r.dueMs - last.toMs <= gapMs) {
      last.toMs = r.dueMs
      last.requests++
      last.maxLatencyMs = Math.max(last.maxLatencyMs, r.latencyMs)
    } else {
      clusters.push({ fromMs: r.dueMs, toMs: r.dueMs, requests: 1, maxLatencyMs: r.latencyMs })
    }
  }
  return clusters
}

/** The `n` clusters with the most slow requests, largest first. */
export function largestClusters(clusters: readonly SlowCluster[], n: number): SlowCluster[] {
  return [...clusters].sort((a, b) => b.requests - a.requests).slice(0, n)
}

/** How many slow requests the clusters hold in all. */
export function slowCount(clusters: readonly SlowCluster[]): number {
  return clusters.reduce((sum, c) => sum + c.requests, 0)
}

/** The share (0..1) of the slow requests that the `n` largest clusters hold; 0 without slow requests. */
export function largestShare(clusters: readonly SlowCluster[], n: number): number {
  const total = slowCount(clusters)
  return total === 0 ? 0 : slowCount(largestClusters(clusters, n)) / total
}
