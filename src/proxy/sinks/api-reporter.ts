/**
 * API mode's sink: each capture is POSTed to /gates/{id}/requests as
 * createRequest's body (docs/reference/api.md), without `diff` (the API computes it), the
 * capture's id (the proxy's own, fresh for each capture) both as body `id`
 * and as X-Request-ID. Bodies are base64, as
 * received (compressed stays compressed: the API decodes its own copy).
 *
 * Headers are redacted here already (the defaults and the gate's fields),
 * so end users' credentials never leave the proxy; the API redacts bodies
 * and headers again before storage, which changes nothing that is already
 * `[REDACTED]`.
 */
import type { RateLimitedLogger } from '../../log/index.ts'
import type { HeaderMap } from '../../diff/index.ts'
import type { CounterChild } from '../../metrics/index.ts'
import type { ApiClient } from './api-client.ts'
import { reportCopyBytes } from '../policy/byte-budget.ts'
import type { Capture, CapturedExchange, CaptureSink, SinkOutcome } from './capture-sink.ts'

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
    heldCopyBytes: reportCopyBytes,
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
          // This capture only: counted once, not retried, the API's health untouched (docs/proxy.md "API mode").
          warnings.warn('capture rejected by the API', { status: outcome.status, ...problemSummary(outcome.text) }, `rejected ${outcome.status}`)
          return { kind: 'skipped', reason: outcome.status === 413 ? 'body_too_large' : 'report_failed' }
        case 'refused':
          // Every capture will get the same answer: a breaker failure, so that the breaker opens and shadowing stops.
          warnings.warn(
            outcome.status === 404 ? 'capture refused by the API: the gate is gone' : "capture refused by the API: the proxy's key is refused",
            { status: outcome.status, ...problemSummary(outcome.text) },
            `refused ${outcome.status}`,
          )
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

/**
 * What a log record says of a refusal: the Problem's `type` and `detail`
 * (RFC 7807), or the start of a body that is not one. The API's details
 * name fields and rules, never the values.
 */
function problemSummary(text: string): { type?: string; detail: string } {
  try {
    const problem = JSON.parse(text) as { type?: unknown; detail?: unknown; title?: unknown }
    const detail = typeof problem.detail === 'string' ? problem.detail : typeof problem.title === 'string' ? problem.title : ''
    return { ...(typeof problem.type === 'string' ? { type: problem.type } : {}), detail: detail.slice(0, 300) }
  } catch {
    return { detail: text.slice(0, 300) }
  }
}

/**
 * The createRequest body (docs/reference/api.md "createRequest"), `raw_query`
 * omitted when empty, `live_repeat_response` when there was no repeat.
 */
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
    // The noise check's repeat (docs/proxy.md "Noise check"), when one was made.
    ...(capture.liveRepeat === undefined ? {} : { live_repeat_response: responsePayload(capture.liveRepeat, redactHeaders) }),
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
