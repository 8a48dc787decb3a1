/**
 * The metrics of the shadowing core (docs/reference/metrics.md
 * "Metrics", the skip counter included), registered once on a component's registry.
 */
import {
  createComparisonMetrics,
  createHttpClientMetrics,
  createHttpServerMetrics,
  createNoiseCheckMetrics,
  createNoiseSkipMetrics,
  createSkipMetrics,
  type ComparisonMetrics,
  type Counter,
  type Gauge,
  type HttpClientMetrics,
  type HttpServerMetrics,
  type NoiseCheckMetrics,
  type NoiseSkipMetrics,
  type Registry,
  type SkipMetrics,
} from '../../metrics/index.ts'
import { BREAKER_STATES, type CircuitBreaker } from '../policy/circuit-breaker.ts'

export interface ProxyMetrics {
  readonly registry: Registry
  /** `http_server_request_duration_seconds` without `http_route` (the proxy has no routes). */
  readonly server: HttpServerMetrics
  /** `http_client_request_duration_seconds{svc_target=live|shadow|api}`. */
  readonly client: HttpClientMetrics
  /** `svc_responses_compared_total`, `svc_diff_operations` (standalone and module). */
  readonly comparisons: ComparisonMetrics
  /** `svc_comparisons_skipped_total{gate,reason}`. */
  readonly skips: SkipMetrics
  /** `svc_noise_checks_total{gate,result}` (standalone and module; in API mode the API counts them). */
  readonly noiseChecks: NoiseCheckMetrics
  /** `svc_noise_checks_skipped_total{gate,reason}`. */
  readonly noiseSkips: NoiseSkipMetrics
  /**
   * `svc_captures_reported_total{gate}`: captures the API accepted (API
   * mode, where the API, not the proxy, counts the comparison).
   */
  readonly reported: Counter<readonly ['gate']>
  /** `svc_background_comparisons`: comparisons in flight, summed over the handlers sharing the registry. */
  readonly inFlight: Gauge
  /** `svc_api_circuit_breaker_state{state}`: 1 for the current state, 0 for the others. */
  watchBreaker(breaker: CircuitBreaker): void
}

/**
 * Registers the core's metrics on `registry`. Call once per registry and
 * share the result between handlers (names can be registered only once).
 */
export function createProxyMetrics(registry: Registry): ProxyMetrics {
  const reported = registry.counter({
    name: 'svc_captures_reported_total',
    help: 'Captures accepted by the API (API mode), by gate.',
    labelNames: ['gate'],
  })
  return {
    registry,
    server: createHttpServerMetrics(registry, { withRoute: false }),
    client: createHttpClientMetrics(registry),
    comparisons: createComparisonMetrics(registry),
    skips: createSkipMetrics(registry),
    noiseChecks: createNoiseCheckMetrics(registry),
    noiseSkips: createNoiseSkipMetrics(registry),
    reported,
    inFlight: registry.gauge({
      name: 'svc_background_comparisons',
      help: 'Background comparisons (shadow exchange, then diff or report) in flight.',
    }),
    watchBreaker(breaker) {
      registry.gauge({
        name: 'svc_api_circuit_breaker_state',
        help: 'State of the circuit breaker around API calls: 1 for the current state.',
        labelNames: ['state'],
        // One breaker per worker: 1 when any worker's breaker is in that state.
        merge: 'max',
        // Read at scrape time: the breaker moves from open to half-open lazily.
        collect: (gauge) => {
          const current = breaker.state
          for (const state of BREAKER_STATES) gauge.labels(state).set(state === current ? 1 : 0)
        },
      })
    },
  }
}
