/**
 * A verdict's thresholds (docs/ci.md "Thresholds"): their names, rules and
 * built-in defaults, defined once for the gate field `verdict`, the
 * verdict query, the command-line flags and the OpenAPI description.
 */

/** The four thresholds, in the order checks and docs list them. */
export const THRESHOLD_NAMES = ['max_diff_rate', 'max_error_rate', 'max_latency_ratio', 'min_requests'] as const
export type ThresholdName = (typeof THRESHOLD_NAMES)[number]

export type VerdictThresholds = { readonly [K in ThresholdName]: number }

/** What a gate stores and a query gives: any of the four, the rest inherited. */
export type ThresholdOverrides = { readonly [K in ThresholdName]?: number }

/**
 * Built-in defaults: at most 1 % of captures with a difference, 1 % of
 * failed shadows, a shadow p95 at most 1.5 times live's on every endpoint,
 * and 100 captures before anything is concluded.
 */
export const DEFAULT_THRESHOLDS: VerdictThresholds = Object.freeze({
  max_diff_rate: 0.01,
  max_error_rate: 0.01,
  max_latency_ratio: 1.5,
  min_requests: 100,
})

/** The largest min_requests: any count of captures a gate can hold is below it. */
export const MAX_MIN_REQUESTS = 1_000_000_000

/** Each threshold's rule, as a predicate and the words of a refusal. */
export const THRESHOLD_RULES: { readonly [K in ThresholdName]: { readonly valid: (n: number) => boolean; readonly rule: string } } = {
  max_diff_rate: { valid: (n) => n >= 0 && n <= 1, rule: 'a number from 0 to 1' },
  max_error_rate: { valid: (n) => n >= 0 && n <= 1, rule: 'a number from 0 to 1' },
  // A ratio of latencies: above 0 and finite; 1 asks the candidate to be no slower than live.
  max_latency_ratio: { valid: (n) => Number.isFinite(n) && n > 0 && n <= 1000, rule: 'a number above 0 and at most 1000' },
  min_requests: {
    valid: (n) => Number.isSafeInteger(n) && n >= 1 && n <= MAX_MIN_REQUESTS,
    rule: `an integer from 1 to ${MAX_MIN_REQUESTS}`,
  },
}

/** The first threshold of `values` that breaks its rule, or undefined. */
export function invalidThreshold(values: ThresholdOverrides): ThresholdName | undefined {
  return THRESHOLD_NAMES.find((name) => values[name] !== undefined && !THRESHOLD_RULES[name].valid(values[name]!))
}

/**
 * The thresholds in force: each from the first of `layers` that sets it
 * (the query, then the gate's `verdict` field), else the built-in default.
 */
export function resolveThresholds(...layers: ReadonlyArray<ThresholdOverrides | null | undefined>): VerdictThresholds {
  const out = { ...DEFAULT_THRESHOLDS } as { [K in ThresholdName]: number }
  for (const name of THRESHOLD_NAMES) {
    const layer = layers.find((candidate) => candidate?.[name] !== undefined)
    if (layer) out[name] = layer[name]!
  }
  return Object.freeze(out)
}
