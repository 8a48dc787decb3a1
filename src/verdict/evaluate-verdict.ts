import type { VerdictThresholds } from './verdict-thresholds.ts'

/** The three answers, defined once for the API, the command line and their exit codes. */
export const VERDICTS = ['pass', 'fail', 'inconclusive'] as const
export type Verdict = (typeof VERDICTS)[number]

/** What the checks measure, in the order they are listed. */
export const CHECK_NAMES = ['requests', 'diff_rate', 'error_rate', 'latency_ratio'] as const
export type CheckName = (typeof CHECK_NAMES)[number]

/** The scope of a check over the whole gate; an endpoint's is `METHOD template`. */
export const GATE_SCOPE = 'gate'

export interface VerdictCheck {
  readonly name: CheckName
  /** `gate`, or an endpoint as `GET /v2/products/{id}`. */
  readonly scope: string
  readonly value: number
  readonly threshold: number
  readonly pass: boolean
}

/** One endpoint's latencies in the window (approximate p95s, in ms; null without any). */
export interface EndpointLatency {
  readonly method: string
  readonly template: string
  readonly livePercentile95: number | null
  readonly shadowPercentile95: number | null
}

/** The counts a verdict is computed from, for one gate and window. */
export interface VerdictFacts {
  /**
   * Captures in the window that can speak for or against the candidate:
   * every capture but those whose live alone failed (`liveFailures`).
   */
  readonly requests: number
  /**
   * Captures whose live failed while the shadow answered: nothing to
   * compare the shadow with, so in no count (docs/ci.md "Checks").
   */
  readonly liveFailures: number
  /** Captures whose comparison found a difference (signature kind `diff`). */
  readonly diffs: number
  /** Those whose difference touched only fields classified `noise` (noise-only-diffs.ts). */
  readonly noiseOnlyDiffs: number
  /** Captures whose shadow failed (status 0). */
  readonly shadowErrors: number
  readonly endpoints: readonly EndpointLatency[]
}

export interface VerdictOutcome {
  readonly verdict: Verdict
  readonly checks: readonly VerdictCheck[]
  readonly requests: number
  /** Captures left out of every count because their live alone failed. */
  readonly liveFailures: number
  /** Diffs left out of `diff_rate` as noise only: 0 unless noise is ignored. */
  readonly noiseIgnored: number
}

export interface VerdictOptions {
  /** Whether noise-only diffs are left out of `diff_rate` (the default). */
  readonly ignoreNoise: boolean
}

/**
 * Latencies under this many milliseconds count as this many in a ratio
 * (docs/ci.md "Checks"): a live p95 of 0 divides nothing by zero, and two
 * fast sides compare as equals. Below it, a ratio measures jitter and the
 * rollups' buckets (about 26 % apart), not the candidate: at a floor of
 * 1 ms, the demo's 2 ms endpoint failed at 5 ms, and a 1 ms one at 2 ms,
 * from one run to the next. The hub marks "slower" by the same rule.
 */
export const LATENCY_FLOOR_MS = 5

/**
 * The verdict on a gate's captures (docs/ci.md "Checks"):
 * - `requests`: at least `min_requests` captures whose live answered (or
 *   whose shadow failed too), else the verdict is `inconclusive` whatever
 *   the other checks say: too few to conclude;
 * - `diff_rate`: diffs / requests at most `max_diff_rate`, without the
 *   noise-only diffs when `ignoreNoise`;
 * - `error_rate`: failed shadows / requests at most `max_error_rate`;
 * - `latency_ratio`, per endpoint with latencies on both sides: shadow
 *   p95 / live p95 at most `max_latency_ratio`.
 * Otherwise `fail` when any check fails, `pass` when none does. Rates of
 * an empty window are 0.
 */
export function evaluateVerdict(
  facts: VerdictFacts,
  thresholds: VerdictThresholds,
  options: VerdictOptions = { ignoreNoise: true },
): VerdictOutcome {
  const rate = (count: number) => (facts.requests > 0 ? count / facts.requests : 0)
  const noiseIgnored = options.ignoreNoise ? Math.min(facts.noiseOnlyDiffs, facts.diffs) : 0
  const diffRate = rate(facts.diffs - noiseIgnored)
  const errorRate = rate(facts.shadowErrors)
  const checks: VerdictCheck[] = [
    gateCheck('requests', facts.requests, thresholds.min_requests, facts.requests >= thresholds.min_requests),
    gateCheck('diff_rate', diffRate, thresholds.max_diff_rate, diffRate <= thresholds.max_diff_rate),
    gateCheck('error_rate', errorRate, thresholds.max_error_rate, errorRate <= thresholds.max_error_rate),
  ]
  const endpoints = [...facts.endpoints].sort((a, b) => compareText(a.template, b.template) || compareText(a.method, b.method))
  for (const endpoint of endpoints) {
    const ratio = latencyRatio(endpoint.livePercentile95, endpoint.shadowPercentile95)
    if (ratio === undefined) continue
    checks.push({
      name: 'latency_ratio',
      scope: `${endpoint.method} ${endpoint.template}`,
      value: ratio,
      threshold: thresholds.max_latency_ratio,
      pass: ratio <= thresholds.max_latency_ratio,
    })
  }
  const verdict: Verdict = !checks[0]!.pass ? 'inconclusive' : checks.every((check) => check.pass) ? 'pass' : 'fail'
  return { verdict, checks, requests: facts.requests, liveFailures: facts.liveFailures, noiseIgnored }
}

/**
 * Whether a shadow latency fails the latency check against live's (the
 * hub's "slower", on an endpoint's p95s or a request's two latencies).
 */
export function failsLatencyCheck(live: number | null, shadow: number | null, limit: number): boolean {
  const ratio = latencyRatio(live, shadow)
  return ratio !== undefined && ratio > limit
}

/** shadow p95 / live p95, each at least LATENCY_FLOOR_MS; undefined when a side has no latency. */
export function latencyRatio(live: number | null, shadow: number | null): number | undefined {
  if (live === null || shadow === null) return undefined
  return Math.max(shadow, LATENCY_FLOOR_MS) / Math.max(live, LATENCY_FLOOR_MS)
}

function gateCheck(name: CheckName, value: number, threshold: number, pass: boolean): VerdictCheck {
  return { name, scope: GATE_SCOPE, value, threshold, pass }
}

/** Code-unit order, the same in every locale (the API's `COLLATE "C"`). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
