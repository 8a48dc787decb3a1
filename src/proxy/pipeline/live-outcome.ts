/**
 * How live's response ended, as the background comparison sees it, and
 * what of it goes into the capture (docs/diff.md "What is compared": a live that
 * gave no response, or broke off mid-body, is a failed side; a body over
 * the bound is not compared).
 */
import type { HeaderMap } from '../../diff/index.ts'
import type { StreamEnd } from '../upstream/bounded-body.ts'
import { failedExchange, type CapturedExchange } from '../sinks/capture-sink.ts'
import { toUpstreamError } from '../upstream/upstream-error.ts'

export type LiveOutcome =
  | { readonly kind: 'no-response'; readonly exchange: CapturedExchange }
  | {
      readonly kind: 'response'
      readonly status: number
      /** Taken when live's headers arrived, before the client's response went out. */
      readonly headers: HeaderMap
      readonly end: StreamEnd
      readonly latencyMs: number
    }
  /** The comparison's bound (or the drain) ended the wait for live's body. */
  | { readonly kind: 'abandoned'; readonly reason: unknown }

/** Live's side of the capture, or why there is none to compare. */
export function toLiveExchange(
  outcome: Exclude<LiveOutcome, { kind: 'abandoned' }>,
  createdAt: Date,
): CapturedExchange | 'too-large' | 'incomplete' {
  if (outcome.kind === 'no-response') return outcome.exchange
  const { status, headers, end } = outcome
  const latencyMs = Math.round(outcome.latencyMs)
  switch (end.kind) {
    case 'complete':
      return { status, headers, body: end.bytes, latencyMs, createdAt }
    case 'too-large':
      return 'too-large'
    case 'failed':
      // Live broke off mid-body (the client got a truncated response).
      return failedExchange(toUpstreamError(end.error, 'live').message + ' while sending the body', latencyMs, createdAt)
    case 'cancelled':
      // The client went away before live's body was through.
      return 'incomplete'
  }
}
