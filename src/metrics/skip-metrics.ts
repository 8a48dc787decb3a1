import type { Counter, CounterChild } from './counter.ts'
import { SKIP_REASONS, type SkipReason } from './label-values.ts'
import type { Registry } from './registry.ts'

/** The skip counters of one gate, bound once. */
export interface GateSkips {
  /** Counts requests that were not compared, for this reason. @default amount 1 */
  inc(reason: SkipReason, amount?: number): void
}

export interface SkipMetrics {
  /** `svc_comparisons_skipped_total{gate,reason}`. */
  readonly skipped: Counter<readonly ['gate', 'reason']>
  /** The counters of one gate (`''` when standalone), cached; every reason starts at 0. */
  forGate(gate: string): GateSkips
  /** Drops a gate's series. */
  removeGate(gate: string): void
}

/**
 * `svc_comparisons_skipped_total`: every request the proxy did not compare, by
 * reason, so that compared + skipped = received and nothing is lost silently
 * (docs/proxy.md "Nothing is lost silently").
 */
export function createSkipMetrics(registry: Registry): SkipMetrics {
  const skipped = registry.counter({
    name: 'svc_comparisons_skipped_total',
    help: 'Requests not compared, by gate and reason.',
    labelNames: ['gate', 'reason'],
  })
  const gates = new Map<string, GateSkips>()

  function bind(gate: string): GateSkips {
    const counts = {} as Record<SkipReason, CounterChild>
    for (const reason of SKIP_REASONS) counts[reason] = skipped.labels(gate, reason)
    const bound: GateSkips = {
      inc: (reason, amount = 1) => counts[reason].inc(amount),
    }
    gates.set(gate, bound)
    return bound
  }

  return {
    skipped,
    forGate: (gate) => gates.get(gate) ?? bind(gate),
    removeGate(gate) {
      gates.delete(gate)
      for (const reason of SKIP_REASONS) skipped.remove(gate, reason)
    },
  }
}
