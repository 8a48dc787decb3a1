/**
 * Standalone mode and the module (docs/proxy.md "Standalone comparison
 * and its log": the proxy computes the diff itself): each capture is redacted and compared
 * here, counted in `svc_responses_compared_total`, and a diff is logged as
 * `response diff detected` with `request.id`, `request.method`,
 * `request.path`, `live_status`, `shadow_status` and the formatted `diff`
 * (docs/reference/metrics.md "Log records"), plus the client's own X-Request-ID when it sent one
 * (`request.id` is the capture's id, docs/proxy.md), and the capture's
 * `endpoint` (`GET /v2/products/{id}`) and `signature` id, as the API
 * computes them for the same capture (docs/insights.md "In logs"). A
 * failed side is the rate-limited `comparison failed` warning, with its
 * endpoint and error signature. Nothing is sent anywhere.
 *
 * A capture with a noise check (`liveRepeat`, docs/proxy.md "Noise
 * check") also has live's two answers compared, under the same settings:
 * counted in `svc_noise_checks_total`, and given to the diff record as
 * `noise` (the ops formatted like `diff`, empty when the repeat matched).
 * A match with the shadow logs nothing, noisy or not: the counter says it.
 */
import { compareResponses, compileCaptureOptions, formatPatch, type CompiledCaptureOptions, type PatchOp } from '../../diff/index.ts'
import {
  DiffSignatureMemo,
  EndpointTemplates,
  endpointOf,
  failureClassOf,
  signatureOf,
  type ResponseOutcome,
  type Signature,
} from '../../insights/index.ts'
import type { LogAttrs, Logger, RateLimitedLogger } from '../../log/index.ts'
import { failedSideOf, type GateComparisons, type GateNoiseChecks } from '../../metrics/index.ts'
import type { Capture, CaptureSink, CapturedExchange, ShadowNotAttempted, SinkOutcome } from './capture-sink.ts'
import type { ShadowSettings } from '../policy/shadow-settings.ts'

export interface DiffLogSinkOptions {
  readonly settings: Pick<ShadowSettings, 'diff' | 'redactedFields' | 'maxBodyBytes' | 'endpoints'>
  readonly logger: Logger
  /** For comparison errors, which come in floods when the shadow is down. */
  readonly warnings: RateLimitedLogger
  readonly comparisons: GateComparisons
  /** `svc_noise_checks_total` of the gate. @default not counted */
  readonly noise?: GateNoiseChecks
}

export const DIFF_LOG_MESSAGE = 'response diff detected'

export function createDiffLogSink(options: DiffLogSinkOptions): CaptureSink {
  const { logger, warnings, comparisons, noise } = options
  const compiled: CompiledCaptureOptions = compileCaptureOptions({
    diff: options.settings.diff,
    redactedFields: options.settings.redactedFields,
    maxBodyBytes: options.settings.maxBodyBytes,
  })
  const templates = options.settings.endpoints ?? EndpointTemplates.NONE
  const erred: SinkOutcome = { kind: 'compared', result: 'error' }
  // The same kinds of difference come back request after request.
  const diffSignatures = new DiffSignatureMemo()
  const signDiff = diffSignatures.of.bind(diffSignatures)

  /**
   * The endpoint and signature the API gives the same capture: it stores
   * the method upper-cased. Only for a capture that is logged: nothing is
   * computed for a match.
   */
  function signed(method: string, path: string, live: ResponseOutcome, shadow: ResponseOutcome, ops: readonly PatchOp[]) {
    const endpoint = endpointOf(method.toUpperCase(), path, templates)
    // Defined for a diff (non-empty ops) and for a failed side, the only callers.
    const signature = signatureOf(endpoint, { live, shadow, ops }, signDiff) as Signature
    return { endpoint: `${endpoint.method} ${endpoint.template}`, signature }
  }

  // A shadow that is down fails every request with the same text while
  // live answers: the key of that pair is made once, not a string per request
  // (each map it keys would hash it anew).
  let lastShadowText: string | undefined
  let lastKey = ''
  function failureKeyOf(live: ResponseOutcome, shadow: ResponseOutcome): string {
    const shadowText = live.status !== 0 && shadow.status === 0 && typeof shadow.body === 'string' ? shadow.body : undefined
    if (shadowText !== undefined && shadowText === lastShadowText) return lastKey
    const key = `${failureClassOf(live)}/${failureClassOf(shadow)}`
    if (shadowText !== undefined) {
      lastShadowText = shadowText
      lastKey = key
    }
    return key
  }

  /**
   * The last failed comparison of one kind (the failed sides' error
   * classes): what its rate-limited line is made of, and only when it is
   * written. Held in place, so that a flood of suppressed ones (a shadow
   * that is down fails every request) makes no object per request; one
   * per kind, a handful whatever the traffic.
   */
  class FailureLine {
    /** Kept itself, not its fields: its `id` may be made only when read (a not-attempted request's). */
    request: FailedRequest = NO_REQUEST
    method = ''
    path = ''
    // The sides' fields, not their objects: a caller may pass the same object each time.
    liveStatus = 0
    liveBody: Uint8Array | string = ''
    shadowStatus = 0
    shadowBody: Uint8Array | string = ''
    cause = ''
    /** The rate-limited logger's key, made once: not a string per failure. */
    readonly key: string

    constructor(classes: string) {
      this.key = `comparison failed ${classes}`
    }
    readonly attrs = (): LogAttrs => {
      const { request, method, path } = this
      const live = { status: this.liveStatus, body: this.liveBody }
      const shadow = { status: this.shadowStatus, body: this.shadowBody }
      const { endpoint, signature } = signed(method, path, live, shadow, NO_OPS)
      return {
        'request.id': request.id,
        ...clientIdAttr(request.clientRequestId),
        'request.method': method,
        'request.path': path,
        endpoint,
        signature: signature.id,
        live_status: live.status,
        shadow_status: shadow.status,
        cause: this.cause,
      }
    }
  }
  const failureLines = new Map<string, FailureLine>()
  const notAttemptedLive = { status: 0, body: '' as Uint8Array | string }
  const notAttemptedShadow = { status: 0, body: '' as Uint8Array | string }

  // has_diff is true for an error (docs/reference/api.md), but a
  // shadow that is down fails every request the same way: one line per
  // interval and kind of failure (the failed sides' error classes, a
  // handful of keys whatever the traffic), the counter has the exact number.
  function error(
    // Its id is read only for a line that is written (a not-attempted request's is made then).
    request: FailedRequest,
    method: string,
    path: string,
    live: ResponseOutcome,
    shadow: ResponseOutcome,
    cause: string,
  ) {
    comparisons.failed(failedSideOf(live.status, shadow.status))
    if (!logger.enabled('warn')) return
    // The key from the error classes alone; the endpoint, the signature and
    // the record only for a line that is written (one per interval and key).
    const classes = failureKeyOf(live, shadow)
    let line = failureLines.get(classes)
    if (line === undefined) failureLines.set(classes, (line = new FailureLine(classes)))
    line.request = request
    line.method = method
    line.path = path
    // A failed side's body is its error text, all the signature reads; a
    // side that answered is not held (its body may be large, and the line
    // stays until the next failure of its kind).
    line.liveStatus = live.status
    line.liveBody = live.status === 0 ? live.body : ''
    line.shadowStatus = shadow.status
    line.shadowBody = shadow.status === 0 ? shadow.body : ''
    line.cause = cause
    warnings.warn('comparison failed', line.attrs, line.key)
  }

  /** Live against its repeat, counted; the ops for the log, undefined when the repeat failed. */
  function noiseOf(live: CapturedExchange, repeat: CapturedExchange): readonly PatchOp[] | undefined {
    const check = compareResponses(live, repeat, compiled)
    noise?.record(check.kind === 'match' ? 'quiet' : check.kind === 'diff' ? 'noisy' : 'error')
    return check.kind === 'match' ? NO_OPS : check.kind === 'diff' ? check.ops : undefined
  }

  return {
    submit(capture: Capture): SinkOutcome {
      // Only the verdict is used: nothing is stored, so nothing is redacted
      // (redacted fields are excluded from the comparison either way).
      const comparison = compareResponses(capture.live, capture.shadow, compiled)
      const noiseOps = capture.liveRepeat === undefined ? undefined : noiseOf(capture.live, capture.liveRepeat)
      switch (comparison.kind) {
        case 'match':
          comparisons.record('match')
          break
        case 'diff': {
          comparisons.record('diff', comparison.ops.length)
          if (!logger.enabled('info')) break
          // The ops the API would store for this capture (processCapture
          // compares the same way), so the signature is the API's.
          const { endpoint, signature } = signed(capture.method, capture.path, capture.live, capture.shadow, comparison.ops)
          logger.info(DIFF_LOG_MESSAGE, {
            'request.id': capture.id,
            ...clientIdAttr(capture.clientRequestId),
            'request.method': capture.method,
            'request.path': capture.path,
            endpoint,
            signature: signature.id,
            live_status: capture.live.status,
            shadow_status: capture.shadow.status,
            diff: formatPatch(comparison.ops),
            ...(noiseOps === undefined ? NO_ATTRS : { noise: formatPatch(noiseOps) }),
          })
          break
        }
        case 'error':
          // The ids alone, not the capture: the line held for its kind keeps what it reads until the next failure of that kind.
          error({ id: capture.id, clientRequestId: capture.clientRequestId }, capture.method, capture.path, capture.live, capture.shadow, comparison.cause)
          break
      }
      return { kind: 'compared', result: comparison.kind }
    },
    // An error needs the statuses, the ids and the cause only.
    shadowNotAttempted(request: ShadowNotAttempted): SinkOutcome {
      // Live's body is not kept: only a failed live's error text is read.
      // The same two objects each time (`error` keeps their fields, not them): one per request is a flood's garbage.
      notAttemptedLive.status = request.liveStatus
      notAttemptedLive.body = request.liveError ?? ''
      notAttemptedShadow.body = request.shadowError
      error(request, request.method, request.path, notAttemptedLive, notAttemptedShadow, request.cause)
      return erred
    },
  }
}

/** OpenTelemetry's name for a request header as a log attribute; absent when the client sent none. */
function clientIdAttr(clientRequestId: string | undefined): Record<string, string> {
  return clientRequestId === undefined ? NO_ATTRS : { 'http.request.header.x-request-id': clientRequestId }
}

const NO_ATTRS: Record<string, string> = {}
const NO_OPS: readonly PatchOp[] = []

/** What a failure's log line reads of its request. */
type FailedRequest = { readonly id: string; readonly clientRequestId?: string }
const NO_REQUEST: FailedRequest = { id: '' }
