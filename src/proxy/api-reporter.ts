/**
 * API mode's sink: each capture is POSTed to /gates/{id}/requests as
 * SPEC.md's createRequest body, without `diff` (the API computes it), the
 * request id both as body `id` and as X-Request-ID. Bodies are base64, as
 * received (compressed stays compressed: the API decodes its own copy).
 *
 * Headers are redacted here already (the defaults and the gate's fields),
 * so end users' credentials never leave the proxy; the API redacts bodies
 * and headers again before storage, which changes nothing that is already
 * `[REDACTED]`.
 */
import type { RateLimitedLogger } from '../log/index.ts'
import type { HeaderMap } from '../diff/index.ts'
import type { CounterChild } from '../metrics/index.ts'
import type { ApiClient } from './api-client.ts'
import type { Capture, CapturedExchange, CaptureSink, SinkOutcome } from './capture.ts'

export interface ApiReporterOptions {
  readonly client: ApiClient
  readonly gateId: string
  /** Returns the header map with redacted values (or the same map). */
  readonly redactHeaders: (headers: HeaderMap) => HeaderMap
  /** `svc_captures_reported_total{gate}`. */
  readonly reported: CounterChild
  readonly warnings: RateLimitedLogger
}

export function createApiReporter(options: ApiReporterOptions): CaptureSink {
  const { client, redactHeaders, reported, warnings } = options
  const path = `/gates/${options.gateId}/requests`
  return {
    // No shadowNotAttempted: the API stores live's response, body included, whatever the shadow did.
    async submit(capture, signal): Promise<SinkOutcome> {
      const body = JSON.stringify(createRequestPayload(capture, redactHeaders))
      const outcome = await client.call({ method: 'POST', path, body, headers: { 'x-request-id': capture.id }, signal })
      switch (outcome.kind) {
        case 'ok':
          reported.inc()
          return { kind: 'reported' }
        case 'breaker-open':
          // Logged once per transition by the breaker's listener, not per capture.
          return { kind: 'skipped', reason: 'breaker_open' }
        case 'rejected':
          warnings.warn('capture rejected by the API', { status: outcome.status, detail: outcome.text.slice(0, 300) }, `rejected ${outcome.status}`)
          return { kind: 'skipped', reason: 'report_failed' }
        case 'failed':
          warnings.warn('capture report failed', { reason: outcome.reason, attempts: outcome.attempts }, 'report failed')
          return { kind: 'skipped', reason: 'report_failed' }
        case 'aborted':
          return { kind: 'skipped', reason: 'report_failed' }
      }
    },
  }
}

/** The createRequest body (SPEC.md "createRequest"), `raw_query` omitted when empty. */
export function createRequestPayload(capture: Capture, redactHeaders: (headers: HeaderMap) => HeaderMap = (h) => h) {
  return {
    id: capture.id,
    method: capture.method,
    path: capture.path,
    ...(capture.rawQuery === '' ? {} : { raw_query: capture.rawQuery }),
    headers: redactHeaders(capture.request.headers),
    body: base64(capture.request.body),
    created_at: capture.createdAt.toISOString(),
    live_response: responsePayload(capture.live, redactHeaders),
    shadow_response: responsePayload(capture.shadow, redactHeaders),
  }
}

function responsePayload(exchange: CapturedExchange, redactHeaders: (headers: HeaderMap) => HeaderMap) {
  return {
    status_code: exchange.status,
    headers: redactHeaders(exchange.headers),
    body: base64(exchange.body),
    latency_ms: Math.max(0, Math.round(exchange.latencyMs)),
    created_at: exchange.createdAt.toISOString(),
  }
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
}
