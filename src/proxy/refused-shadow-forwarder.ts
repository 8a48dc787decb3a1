/**
 * A request that arrives while the shadow is known to be down: it refused
 * a connection within the refusal window (`refusal-window.ts`), so no
 * shadow request is attempted and the comparison is an `error` with shadow
 * status 0 whatever live answers (DESIGN.md "Diff semantics"). When the
 * sink does not need live's body for such a comparison
 * (`CaptureSink.needsLiveBodyOfFailedShadow`: the diff-log sink of
 * standalone mode and the module), nothing about live's response is worth
 * keeping but its status and headers. So live is forwarded exactly as an
 * unshadowed request is (no copy of its body, no background task) and the
 * capture is submitted as soon as live's headers are in, with an empty
 * live body. Issue 4 asks that a shadow that is down leaves the client's
 * p50 and p99 within 10 % of no shadowing; keeping live's body for an
 * `error` that never reads it cost far more than that.
 *
 * What stays as on the full path: the request is compared exactly once
 * (`svc_responses_compared_total{result="error"}`), with the same cause;
 * a live failure (502/504) is compared with both sides failed; the
 * callbacks slot the caller holds is freed once the sink has answered.
 * What this path cannot see, since it does not wait for live's body: a
 * body over SVC_APP_MAX_BODY_SIZE, one cut mid-way, or a client that
 * leaves early. On the full path those end as `body_too_large`, an error,
 * or `report_failed`; here they are the `error` the shadow already made
 * of the comparison.
 */
import {
  failedExchange,
  headerMapOf,
  splitTarget,
  type Capture,
  type CapturedExchange,
  type CaptureSink,
  type SinkOutcome,
} from './capture.ts'
import type { HeaderMap } from '../diff/index.ts'
import type { LiveForwarder } from './live-forwarder.ts'

export interface RefusedShadowForwarderOptions {
  readonly live: LiveForwarder
  /** A sink with `needsLiveBodyOfFailedShadow` false. */
  readonly sink: CaptureSink
  /** The shadow side's error text: no connection was attempted. */
  readonly notAttemptedText: string
  /** Called once with what became of the capture: frees the callbacks slot, counts a skip. */
  readonly settle: (outcome: SinkOutcome) => void
  /** A sink that throws or rejects (a bug): the capture then counts as `report_failed`. */
  readonly onUnexpected: (error: unknown) => void
}

/** One request to forward: what the caller has read and decided. */
export interface RefusedShadowRequest {
  readonly id: string
  readonly method: string
  /** Path and query. */
  readonly target: string
  readonly headers: Headers
  /** The request body as read, or null when the request had none (GET, HEAD). */
  readonly body: Uint8Array | null
}

export type RefusedShadowForwarder = (request: RefusedShadowRequest) => Promise<Response>

/** No background task holds this capture: nothing ever aborts its submission. */
const NEVER_ABORTED = new AbortController().signal
const EMPTY = new Uint8Array(0)
const NO_HEADERS: HeaderMap = Object.freeze({})

export function createRefusedShadowForwarder(options: RefusedShadowForwarderOptions): RefusedShadowForwarder {
  const { live, sink, notAttemptedText, settle, onUnexpected } = options
  const failed: SinkOutcome = { kind: 'skipped', reason: 'report_failed' }
  // The shadow side is the same every time (DESIGN.md "Diff semantics": status 0, no headers, the error as body).
  const notAttempted = new TextEncoder().encode(notAttemptedText)

  function submit(capture: Capture): void {
    let outcome: Promise<SinkOutcome> | SinkOutcome
    try {
      outcome = sink.submit(capture, NEVER_ABORTED)
    } catch (error) {
      onUnexpected(error)
      settle(failed)
      return
    }
    if (outcome instanceof Promise) {
      outcome.then(settle, (error: unknown) => {
        onUnexpected(error)
        settle(failed)
      })
    } else {
      settle(outcome)
    }
  }

  return async (request) => {
    const createdAt = new Date()
    const result = await live.send(request.method, request.target, request.headers, request.body)
    let liveExchange: CapturedExchange
    if (result.ok) {
      const upstream = result.exchange.response
      liveExchange = {
        status: upstream.status,
        // Now: once the client's response (live's own) is sent, Bun drops Content-Length from these headers.
        headers: headerMapOf(upstream.headers),
        body: EMPTY,
        latencyMs: Math.round(result.exchange.latencyMs),
        createdAt,
      }
    } else {
      liveExchange = failedExchange(result.error.message, result.latencyMs, createdAt)
    }
    const { headers } = request
    const body = request.body ?? EMPTY
    submit({
      id: request.id,
      method: request.method,
      ...splitTarget(request.target),
      createdAt,
      get request() {
        return { headers: headerMapOf(headers), body }
      },
      live: liveExchange,
      shadow: { status: 0, headers: NO_HEADERS, body: notAttempted, latencyMs: 0, createdAt },
    })
    return live.respond(result)
  }
}
