/**
 * What the pipeline hands to a sink (`diff-log-sink.ts`, `api-reporter.ts`)
 * and what it gets back. A capture is one shadowed exchange: the request
 * as sent upstream and both responses, with the timings createRequest
 * asks for (docs/reference/api.md "createRequest"). Bodies are the exact bytes (compressed stays
 * compressed); the diff decodes its own copy.
 */
import type { HeaderMap } from '../../diff/index.ts'
import type { ComparisonResult, SkipReason } from '../../metrics/index.ts'

export interface CapturedExchange {
  /** HTTP status; 0 when the upstream failed (timeout, refused, reset). */
  readonly status: number
  readonly headers: HeaderMap
  /** The body bytes, or the error text when `status` is 0 (docs/diff.md "What is compared"). */
  readonly body: Uint8Array
  /** From sending the request to the end of the response body. */
  readonly latencyMs: number
  readonly createdAt: Date
}

export interface Capture {
  /**
   * The capture's id: a UUID the proxy makes for each capture, never the
   * client's X-Request-ID, which a client may reuse (docs/proxy.md "API mode").
   */
  readonly id: string
  /** The client's X-Request-ID as sent (for logs), undefined when absent. */
  readonly clientRequestId?: string
  readonly method: string
  /** The path without its query. */
  readonly path: string
  /** The query without `?`; `''` when there is none. */
  readonly rawQuery: string
  readonly createdAt: Date
  readonly request: { readonly headers: HeaderMap; readonly body: Uint8Array }
  readonly live: CapturedExchange
  readonly shadow: CapturedExchange
  /**
   * Live's answer to the same request asked again (the noise check,
   * docs/proxy.md "Noise check"), when one was made: set by the pipeline
   * before the capture reaches the sink.
   */
  liveRepeat?: CapturedExchange
}

/**
 * What became of a capture handed to a sink. Every request the proxy
 * receives ends as exactly one of these or as a skip, so that compared +
 * reported + skipped = received (docs/proxy.md "Nothing is lost silently").
 */
export type SinkOutcome =
  | { readonly kind: 'compared'; readonly result: ComparisonResult }
  | { readonly kind: 'reported' }
  | { readonly kind: 'skipped'; readonly reason: SkipReason }

/** A request not compared because its capture could not be had or handed over whole. */
export const REPORT_FAILED: SinkOutcome = Object.freeze({ kind: 'skipped', reason: 'report_failed' })

/**
 * A request that arrived while the shadow was known to be down (it refused
 * a connection and had not answered since, `refusal-window.ts`): no shadow
 * request was sent, so the comparison is an `error` whatever live answered
 * (docs/proxy.md "Forwarding", a shadow that is down).
 */
export interface ShadowNotAttempted {
  /** May be made when first read (a getter, the same value on every read): read it, do not spread the object for it. */
  readonly id: string
  /** The client's X-Request-ID as sent (for logs), undefined when absent. */
  readonly clientRequestId?: string
  readonly method: string
  /** The path without its query. */
  readonly path: string
  /** Live's status; 0 when live failed. */
  readonly liveStatus: number
  /** Live's error text when it failed (the body of a status 0), for the error signature. */
  readonly liveError?: string
  /** The shadow's error text: why it was not attempted. */
  readonly shadowError: string
  /** The comparison's cause, as compareResponses gives it for these sides (`failureCause`). */
  readonly cause: string
}

/**
 * Where completed captures go: the standalone diff-and-log sink, or the API
 * reporter. `signal` aborts at shutdown when the drain bound is reached.
 * A sink counts its own successes; the handler counts skips.
 */
export interface CaptureSink {
  submit(capture: Capture, signal: AbortSignal): Promise<SinkOutcome> | SinkOutcome
  /**
   * For a sink that needs only the statuses and the cause of an error (the
   * diff-log sink; not the API reporter, which stores live's response):
   * while the shadow is known to be down, live is forwarded like an
   * unshadowed request and this is called once live's headers are in,
   * instead of `submit` with a whole capture (`refused-shadow-forwarder.ts`).
   * It must answer at once: nothing waits for it at shutdown.
   */
  shadowNotAttempted?(request: ShadowNotAttempted): SinkOutcome
  /**
   * Bytes the sink holds beyond the capture's bodies while `submit` runs,
   * for a capture whose bodies total `bodyBytes`: reserved in the
   * bytes-in-flight budget (`byte-budget.ts`) before `submit`. The API
   * reporter's encoded copy; none for a sink that answers at once.
   */
  heldCopyBytes?(bodyBytes: number): number
}

const encoder = new TextEncoder()

/** The record of an upstream that gave no response: status 0, no headers, the error as body. */
export function failedExchange(errorText: string, latencyMs: number, createdAt: Date): CapturedExchange {
  return { status: 0, headers: {}, body: encoder.encode(errorText), latencyMs, createdAt }
}
