import { HTTP_DURATION_BUCKETS } from './buckets.ts'
import type { Histogram } from './histogram.ts'
import { httpMethodLabel, statusCodeLabel } from './label-values.ts'
import type { LabelNames } from './metric.ts'
import type { Registry } from './registry.ts'

export interface HttpServerMetricsOptions {
  /**
   * Adds the `http_route` label: the matched route template (`/gates/:id`),
   * never the raw path, which would mint a series per id. Only the API has it
   * (docs/reference/metrics.md "HTTP"); the proxy has no routes.
   */
  readonly withRoute: boolean
}

export interface HttpServerMetrics {
  /** `http_server_request_duration_seconds`. */
  readonly duration: Histogram<LabelNames>
  /**
   * Records one served request. The method is normalised (`_OTHER` for
   * unknown ones); `route` is used only when created `withRoute`, and a
   * request that matched no route should pass `''`.
   */
  observe(method: string, statusCode: number, seconds: number, route?: string): void
}

/**
 * `http_server_request_duration_seconds` (OTel `http.server.request.duration`),
 * the same for API and proxy. No `*_requests_total`: rates come from `_count`.
 */
export function createHttpServerMetrics(
  registry: Registry,
  options: HttpServerMetricsOptions,
): HttpServerMetrics {
  const common = {
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests.',
    buckets: HTTP_DURATION_BUCKETS,
  } as const
  if (options.withRoute) {
    const duration = registry.histogram({
      ...common,
      labelNames: ['http_request_method', 'http_response_status_code', 'http_route'],
    })
    return {
      duration,
      observe(method, statusCode, seconds, route = '') {
        duration
          .labels(httpMethodLabel(method), statusCodeLabel(statusCode), route)
          .observe(seconds)
      },
    }
  }
  const duration = registry.histogram({
    ...common,
    labelNames: ['http_request_method', 'http_response_status_code'],
  })
  return {
    duration,
    observe(method, statusCode, seconds) {
      duration.labels(httpMethodLabel(method), statusCodeLabel(statusCode)).observe(seconds)
    },
  }
}
