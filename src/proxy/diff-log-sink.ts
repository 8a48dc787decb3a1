/**
 * Standalone mode and the module (SPEC.md "What the service does": the
 * proxy "computes the diff itself"): each capture is redacted and compared
 * here, counted in `svc_responses_compared_total`, and a diff is logged as
 * `response diff detected` with `request.id`, `request.method`,
 * `request.path`, `live_status`, `shadow_status` and the formatted `diff`
 * (SPEC.md "Events"), plus the client's own X-Request-ID when it sent one
 * (`request.id` is the capture's id, docs/proxy.md). Nothing is sent
 * anywhere.
 */
import { compareResponses, compileCaptureOptions, formatPatch, type CompiledCaptureOptions } from '../diff/index.ts'
import type { Logger, RateLimitedLogger } from '../log/index.ts'
import type { GateComparisons } from '../metrics/index.ts'
import type { Capture, CaptureSink, ShadowNotAttempted, SinkOutcome } from './capture.ts'
import type { ShadowSettings } from './shadow-settings.ts'

export interface DiffLogSinkOptions {
  readonly settings: Pick<ShadowSettings, 'diff' | 'redactedFields' | 'maxBodyBytes'>
  readonly logger: Logger
  /** For comparison errors, which come in floods when the shadow is down. */
  readonly warnings: RateLimitedLogger
  readonly comparisons: GateComparisons
}

export const DIFF_LOG_MESSAGE = 'response diff detected'

export function createDiffLogSink(options: DiffLogSinkOptions): CaptureSink {
  const { logger, warnings, comparisons } = options
  const compiled: CompiledCaptureOptions = compileCaptureOptions({
    diff: options.settings.diff,
    redactedFields: options.settings.redactedFields,
    maxBodyBytes: options.settings.maxBodyBytes,
  })
  const erred: SinkOutcome = { kind: 'compared', result: 'error' }

  // has_diff is true for an error (DESIGN.md "Diff semantics"), but a
  // shadow that is down fails every request the same way: one line per
  // interval, the counter has the exact number.
  function error(
    id: string,
    clientRequestId: string | undefined,
    method: string,
    path: string,
    liveStatus: number,
    shadowStatus: number,
    cause: string,
  ) {
    comparisons.record('error')
    warnings.warn(
      'comparison failed',
      {
        'request.id': id,
        ...clientIdAttr(clientRequestId),
        'request.method': method,
        'request.path': path,
        live_status: liveStatus,
        shadow_status: shadowStatus,
        cause,
      },
      'comparison failed',
    )
  }

  return {
    submit(capture: Capture): SinkOutcome {
      // Only the verdict is used: nothing is stored, so nothing is redacted
      // (redacted fields are excluded from the comparison either way).
      const comparison = compareResponses(capture.live, capture.shadow, compiled)
      switch (comparison.kind) {
        case 'match':
          comparisons.record('match')
          break
        case 'diff':
          comparisons.record('diff', comparison.ops.length)
          logger.info(DIFF_LOG_MESSAGE, {
            'request.id': capture.id,
            ...clientIdAttr(capture.clientRequestId),
            'request.method': capture.method,
            'request.path': capture.path,
            live_status: capture.live.status,
            shadow_status: capture.shadow.status,
            diff: formatPatch(comparison.ops),
          })
          break
        case 'error':
          error(capture.id, capture.clientRequestId, capture.method, capture.path, capture.live.status, capture.shadow.status, comparison.cause)
          break
      }
      return { kind: 'compared', result: comparison.kind }
    },
    // An error needs the statuses, the ids and the cause only.
    shadowNotAttempted(request: ShadowNotAttempted): SinkOutcome {
      error(request.id, request.clientRequestId, request.method, request.path, request.liveStatus, 0, request.cause)
      return erred
    },
  }
}

/** OpenTelemetry's name for a request header as a log attribute; absent when the client sent none. */
function clientIdAttr(clientRequestId: string | undefined): Record<string, string> {
  return clientRequestId === undefined ? NO_ATTRS : { 'http.request.header.x-request-id': clientRequestId }
}

const NO_ATTRS: Record<string, string> = {}
