/**
 * Stage 4, collect: both sides of a shadowed request within the shadow
 * timeout (SVC_APP_SHADOW_TIMEOUT bounds the shadow exchange and the wait
 * for live's body together; one timer for all, `deadline-queue.ts`), made
 * into a capture. `PendingComparison` gathers the sides as they come in;
 * this makes them the capture. The timeout ends the exchanges, not the
 * comparison: a shadow that timed out is a failed side, still captured.
 */
import { canonicalHeaderName, type HeaderMap } from '../../diff/index.ts'
import { splitTarget } from '../../net/request-target.ts'
import { SHADOW_MODE_HEADER, SHADOW_MODE_VALUE } from '../policy/forward-headers.ts'
import type { Capture, CapturedExchange } from '../sinks/capture-sink.ts'
import type { RequestFields } from '../../net/field-list.ts'
import { headerMapOfRequest } from '../upstream/header-map.ts'
import { TimeoutReason } from '../upstream/upstream-error.ts'
import { DeadlineQueue } from '../../async/deadline-queue.ts'
import type { PendingComparison } from './pending-comparison.ts'

const EMPTY = new Uint8Array(0)

/** Both sides of a shadowed request as the sink takes them. */
export function captureOf(comparison: PendingComparison, live: CapturedExchange, shadow: CapturedExchange): Capture {
  const { id, clientRequestId, method, target, headers } = comparison.request
  const { path, rawQuery } = splitTarget(target)
  const body = comparison.request.body ?? EMPTY
  return {
    id,
    clientRequestId,
    method,
    path,
    rawQuery,
    createdAt: comparison.createdAt,
    // Built only for a sink that reads it (the API reporter; the diff does not).
    get request() {
      return { headers: shadowRequestHeaderMap(headers), body }
    },
    live,
    shadow,
  }
}

const SHADOW_MODE_NAME = canonicalHeaderName(SHADOW_MODE_HEADER)

/**
 * The captured request's headers: what the shadow was sent, so live's
 * plus `X-Svc-Mode: shadow` (in place of any a client sent), which is
 * never redacted (docs/proxy.md "API mode").
 */
function shadowRequestHeaderMap(headers: RequestFields): HeaderMap {
  const map = headerMapOfRequest(headers)
  map[SHADOW_MODE_NAME] = [SHADOW_MODE_VALUE]
  return map
}

/**
 * The shadow timeouts of one handler (`PipelineContext.shadowDeadlines`).
 * The reason is made when one fires, not per request: an Error costs a
 * stack capture.
 */
export function shadowDeadlines(timeoutMs: number): DeadlineQueue<PendingComparison> {
  return new DeadlineQueue<PendingComparison>(timeoutMs, (comparison) => comparison.abandon(new TimeoutReason(timeoutMs)))
}
