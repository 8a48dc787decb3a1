import { DIFF_OPERATION_BUCKETS } from './buckets.ts'
import type { Counter, CounterChild } from './counter.ts'
import type { Histogram, HistogramChild } from './histogram.ts'
import { COMPARISON_RESULTS, FAILED_SIDES, type FailedSide } from './label-values.ts'
import type { Registry } from './registry.ts'

/** The comparison metrics of one gate, bound once. */
export interface GateComparisons {
  /**
   * Counts one comparison that had both answers; `operations` (the patch
   * length) is observed only when the result is `diff`
   * (docs/reference/metrics.md "Comparisons").
   */
  record(result: 'match' | 'diff', operations?: number): void
  /** Counts one comparison with result `error`, by the side that failed. */
  failed(side: FailedSide): void
}

export interface ComparisonMetrics {
  /** `svc_responses_compared_total{gate,result}`. */
  readonly compared: Counter<readonly ['gate', 'result']>
  /** `svc_diff_operations{gate}`. */
  readonly diffOperations: Histogram<readonly ['gate']>
  /** `svc_comparison_errors_total{gate,side}`: the `error` results by failed side. */
  readonly errors: Counter<readonly ['gate', 'side']>
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
  const errors = registry.counter({
    name: 'svc_comparison_errors_total',
    help: 'Comparisons with result error, by gate and the side that failed (live, shadow, both).',
    labelNames: ['gate', 'side'],
  })
  const gates = new Map<string, GateComparisons>()

  function bind(gate: string): GateComparisons {
    const match = compared.labels(gate, 'match')
    const diff = compared.labels(gate, 'diff')
    const error = compared.labels(gate, 'error')
    const sides = {} as Record<FailedSide, CounterChild>
    for (const side of FAILED_SIDES) sides[side] = errors.labels(gate, side)
    const operationsChild: HistogramChild = diffOperations.labels(gate)
    const bound: GateComparisons = {
      record(result, operations) {
        if (result === 'match') return match.inc()
        diff.inc()
        if (operations !== undefined) operationsChild.observe(operations)
      },
      failed(side) {
        error.inc()
        sides[side].inc()
      },
    }
    gates.set(gate, bound)
    return bound
  }

  return {
    compared,
    diffOperations,
    errors,
    forGate: (gate) => gates.get(gate) ?? bind(gate),
    removeGate(gate) {
      gates.delete(gate)
      for (const result of COMPARISON_RESULTS) compared.remove(gate, result)
      for (const side of FAILED_SIDES) errors.remove(gate, side)
      diffOperations.remove(gate)
    },
  }
}
