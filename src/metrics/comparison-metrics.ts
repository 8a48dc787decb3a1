import { DIFF_OPERATION_BUCKETS } from './buckets.ts'
import type { Counter, CounterChild } from './counter.ts'
import type { Histogram, HistogramChild } from './histogram.ts'
import { COMPARISON_RESULTS, type ComparisonResult } from './label-values.ts'
import type { Registry } from './registry.ts'

/** The comparison metrics of one gate, bound once. */
export interface GateComparisons {
  /**
   * Counts one comparison; `operations` (the patch length) is observed only
   * when the result is `diff` (docs/reference/metrics.md "Comparisons").
   */
  record(result: ComparisonResult, operations?: number): void
}

export interface ComparisonMetrics {
  /** `svc_responses_compared_total{gate,result}`. */
  readonly compared: Counter<readonly ['gate', 'result']>
  /** `svc_diff_operations{gate}`. */
  readonly diffOperations: Histogram<readonly ['gate']>
  /**
   * The metrics of one gate (its UUID, or `''` for a standalone proxy or the
   * module), cached. Every result starts at 0, so rates work from the start.
   */
  forGate(gate: string): GateComparisons
  /** Drops a deleted gate's series. */
  removeGate(gate: string): void
}

/**
 * The domain series of whichever component computes the diff
 * (docs/reference/metrics.md "Comparisons").
 */
export function createComparisonMetrics(registry: Registry): ComparisonMetrics {
  const compared = registry.counter({
    name: 'svc_responses_compared_total',
    help: 'Live/shadow response pairs compared, by gate and result (match, diff, error).',
    labelNames: ['gate', 'result'],
  })
  const diffOperations = registry.histogram({
    name: 'svc_diff_operations',
    help: 'JSON Patch operations per comparison that found a diff.',
    labelNames: ['gate'],
    buckets: DIFF_OPERATION_BUCKETS,
  })
  const gates = new Map<string, GateComparisons>()

  function bind(gate: string): GateComparisons {
    const counts = {} as Record<ComparisonResult, CounterChild>
    for (const result of COMPARISON_RESULTS) counts[result] = compared.labels(gate, result)
    const operationsChild: HistogramChild = diffOperations.labels(gate)
    const bound: GateComparisons = {
      record(result, operations) {
        counts[result].inc()
        if (result === 'diff' && operations !== undefined) operationsChild.observe(operations)
      },
    }
    gates.set(gate, bound)
    return bound
  }

  return {
    compared,
    diffOperations,
    forGate: (gate) => gates.get(gate) ?? bind(gate),
    removeGate(gate) {
      gates.delete(gate)
      for (const result of COMPARISON_RESULTS) compared.remove(gate, result)
      diffOperations.remove(gate)
    },
  }
}
