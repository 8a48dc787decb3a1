import { HTTP_DURATION_BUCKETS } from './buckets.ts'
import type { Histogram, HistogramChild } from './histogram.ts'
import { httpMethodLabel, statusCodeLabel, svcTargetLabel, type SvcTarget } from './label-values.ts'
import type { Registry } from './registry.ts'

type ClientLabels = readonly [
  'http_request_method',
  'http_response_status_code',
  'server_address',
  'server_port',
  'svc_target',
]

/** Records the requests sent to one upstream. */
export interface UpstreamRecorder {
  /** Records one request; `statusCode` 0 means no response (timeout, refused, reset). */
  observe(method: string, statusCode: number, seconds: number): void
}

export interface HttpClientMetrics {
  /** `http_client_request_duration_seconds`. */
  readonly duration: Histogram<ClientLabels>
  /**
   * A recorder for one upstream, its address and port taken from the URL
   * (default port by scheme), made once at startup.
   */
  forUpstream(target: SvcTarget, url: URL | string): UpstreamRecorder
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 }

/** `http_client_request_duration_seconds` (OTel `http.client.request.duration`), proxy only. */
export function createHttpClientMetrics(registry: Registry): HttpClientMetrics {
  const duration = registry.histogram({
    name: 'http_client_request_duration_seconds',
    help: 'Duration of HTTP client requests to live, shadow and the API.',
    labelNames: [
      'http_request_method',
      'http_response_status_code',
      'server_address',
      'server_port',
      'svc_target',
    ],
    buckets: HTTP_DURATION_BUCKETS,
  })
  return {
    duration,
    forUpstream(target, url) {
      const parsed = typeof url === 'string' ? new URL(url) : url
      // OTel's server.address is the host without IPv6 brackets.
      const address = parsed.hostname.replace(/^\[(.*)\]$/, '$1')
      const port = parsed.port === '' ? (DEFAULT_PORTS[parsed.protocol] ?? '') : Number(parsed.port)
      const svcTarget = svcTargetLabel(target)
      // The series of the last method and status, kept: an upstream answers most requests alike,
      // and each lookup is five map levels. Safe because this metric's series are never removed.
      let lastMethod: string | undefined
      let lastStatus = -1
      let last: HistogramChild | undefined
      return {
        observe(method, statusCode, seconds) {
          if (method !== lastMethod || statusCode !== lastStatus || last === undefined) {
            last = duration.labels(httpMethodLabel(method), statusCodeLabel(statusCode), address, port, svcTarget)
            lastMethod = method
            lastStatus = statusCode
          }
          last.observe(seconds)
        },
      }
    },
  }
}
