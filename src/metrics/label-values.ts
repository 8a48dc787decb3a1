/**
 * The allowed values of the service's bounded labels, each defined once for
 * both the type and the runtime check (docs/reference/metrics.md "Label
 * values").
 */
import { HTTP_METHODS, type HttpMethod } from '../net/http-method.ts'

/** `result` of `svc_responses_compared_total`. */
export const COMPARISON_RESULTS = ['match', 'diff', 'error'] as const
export type ComparisonResult = (typeof COMPARISON_RESULTS)[number]

/**
 * `side` of `svc_comparison_errors_total`: which side of a comparison with
 * result `error` failed. Live failing says nothing of the candidate, so an
 * alert on the candidate reads `shadow` and `both` only.
 */
export const FAILED_SIDES = ['live', 'shadow', 'both'] as const
export type FailedSide = (typeof FAILED_SIDES)[number]

/** The failed side of a comparison whose live and/or shadow status is 0 (a failed side, docs/diff.md). */
export function failedSideOf(liveStatus: number, shadowStatus: number): FailedSide {
  if (liveStatus === 0) return shadowStatus === 0 ? 'both' : 'live'
  return 'shadow'
}

/** `svc_target` of `http_client_request_duration_seconds`; `unknown` is the fallback. */
export const SVC_TARGETS = ['live', 'shadow', 'api', 'unknown'] as const
export type SvcTarget = (typeof SVC_TARGETS)[number]

/** `reason` of `svc_comparisons_skipped_total`: why a request was not compared. */
export const SKIP_REASONS = [
  'sampled_out',
  'denied_by_rule',
  'body_too_large',
  'callbacks_full',
  'breaker_open',
  'report_failed',
  'memory_budget',
] as const
export type SkipReason = (typeof SKIP_REASONS)[number]

/** `http_request_method`: the standard methods (`src/net/http-method.ts`), else `_OTHER`. */
export { HTTP_METHODS, type HttpMethod }

/**
 * The methods OpenTelemetry's HTTP conventions know (RFC 9110 plus PATCH).
 * "If the HTTP request method is not known to instrumentation, it MUST set
 * the http.request.method attribute to _OTHER": a client sending made-up
 * methods must not be able to mint new series.
 */
const KNOWN_METHODS: ReadonlySet<string> = new Set(HTTP_METHODS)
const KNOWN_TARGETS: ReadonlySet<string> = new Set(SVC_TARGETS)

/** The `http_request_method` label: the method if known (case-sensitive, as OTel says), else `_OTHER`. */
export function httpMethodLabel(method: string): HttpMethod | '_OTHER' {
  return KNOWN_METHODS.has(method) ? (method as HttpMethod) : '_OTHER'
}

/**
 * The `http_response_status_code` label. No response at all (timeout,
 * refused, reset; status 0) gives the empty value, which Prometheus treats
 * as an absent label, as OTel omits the attribute.
 */
export function statusCodeLabel(status: number): number | '' {
  return status > 0 ? status : ''
}

/** The `svc_target` label: the target if known, else `unknown`. */
export function svcTargetLabel(target: string): SvcTarget {
  return KNOWN_TARGETS.has(target) ? (target as SvcTarget) : 'unknown'
}

/** `result` of `svc_noise_checks_total`: live against its repeat (docs/proxy.md "Noise check"). */
export const NOISE_CHECK_RESULTS = ['quiet', 'noisy', 'error'] as const
export type NoiseCheckResult = (typeof NOISE_CHECK_RESULTS)[number]

/** `reason` of `svc_noise_checks_skipped_total`: why a request sampled for a noise check got none. */
export const NOISE_SKIP_REASONS = ['method', 'body', 'live_incomplete', 'rate_limited', 'memory_budget'] as const
export type NoiseSkipReason = (typeof NOISE_SKIP_REASONS)[number]
