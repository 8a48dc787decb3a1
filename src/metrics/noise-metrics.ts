import type { Counter, CounterChild } from './counter.ts'
import { NOISE_CHECK_RESULTS, NOISE_SKIP_REASONS, type NoiseCheckResult, type NoiseSkipReason } from './label-values.ts'
import type { Registry } from './registry.ts'

/** The noise-check results of one gate, bound once. */
export interface GateNoiseChecks {
  record(result: NoiseCheckResult): void
}

/** The noise-check skips of one gate, bound once. */
export interface GateNoiseSkips {
  inc(reason: NoiseSkipReason): void
}

export interface NoiseCheckMetrics {
  /** `svc_noise_checks_total{gate,result}`. */
  readonly checks: Counter<readonly ['gate', 'result']>
  /** The counters of one gate (`''` standalone and in the module), cached; every result starts at 0. */
  forGate(gate: string): GateNoiseChecks
  /** Drops a gate's series. */
  removeGate(gate: string): void
}

export interface NoiseSkipMetrics {
  /** `svc_noise_checks_skipped_total{gate,reason}`. */
  readonly skipped: Counter<readonly ['gate', 'reason']>
  /** The counters of one gate, cached; every reason starts at 0. */
  forGate(gate: string): GateNoiseSkips
  /** Drops a gate's series. */
  removeGate(gate: string): void
}

/**
 * `svc_noise_checks_total`: live's answer compared with live's own answer
 * to the same request asked again (docs/proxy.md "Noise check"), counted
 * by whichever component compares them: the standalone proxy and the
 * module; in API mode, the API.
 */
export function createNoiseCheckMetrics(registry: Registry): NoiseCheckMetrics {
  const checks = registry.counter({
    name: 'svc_noise_checks_total',
    help: "Noise checks (live's answer against live's answer to the same request asked again), by gate and result (quiet, noisy, error).",
    labelNames: ['gate', 'result'],
  })
  const series = byGate(NOISE_CHECK_RESULTS, (gate, result) => checks.labels(gate, result), (gate, result) => checks.remove(gate, result))
  return { checks, ...series((count) => ({ record: count })) }
}

/**
 * `svc_noise_checks_skipped_total`: requests sampled for a noise check
 * that got none, by reason; counted where the repeat is made (the proxy in
 * either mode, the module).
 */
export function createNoiseSkipMetrics(registry: Registry): NoiseSkipMetrics {
  const skipped = registry.counter({
    name: 'svc_noise_checks_skipped_total',
    help: 'Requests sampled for a noise check that got none, by gate and reason.',
    labelNames: ['gate', 'reason'],
  })
  const series = byGate(NOISE_SKIP_REASONS, (gate, reason) => skipped.labels(gate, reason), (gate, reason) => skipped.remove(gate, reason))
  return { skipped, ...series((count) => ({ inc: count })) }
}

/**
 * One cached binding per gate of a counter labelled by gate and one of
 * `values`, every series made at 0 so that rates work from the start.
 */
function byGate<V extends string>(
  values: readonly V[],
  child: (gate: string, value: V) => CounterChild,
  remove: (gate: string, value: V) => void,
) {
  return <G>(bound: (count: (value: V) => void) => G): { forGate(gate: string): G; removeGate(gate: string): void } => {
    const gates = new Map<string, G>()
    return {
      forGate(gate) {
        let found = gates.get(gate)
        if (found === undefined) {
          const children = new Map<V, CounterChild>(values.map((value) => [value, child(gate, value)]))
          found = bound((value) => children.get(value)!.inc())
          gates.set(gate, found)
        }
        return found
      },
      removeGate(gate) {
        gates.delete(gate)
        for (const value of values) remove(gate, value)
      },
    }
  }
}
