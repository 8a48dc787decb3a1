/**
 * Why an upstream exchange failed, as a value (STYLE.md "Outcomes as
 * values"): it picks the client's status for live (504 on a timeout, 502
 * otherwise) and becomes the error text stored as the failed side's body
 * (DESIGN.md "Diff semantics": status 0, the error text as body).
 */

export const UPSTREAM_FAILURES = ['timeout', 'refused', 'reset', 'error'] as const
export type UpstreamFailureKind = (typeof UPSTREAM_FAILURES)[number]

export class UpstreamError extends Error {
  readonly code = 'upstream-failed'
  constructor(
    readonly kind: UpstreamFailureKind,
    /** `live`, `shadow` or `api`: which upstream failed. */
    readonly target: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** The reason given to an AbortController when a timeout, not a caller, aborts it. */
export class TimeoutReason extends Error {
  readonly code = 'timeout'
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${formatMs(timeoutMs)}`)
  }
}

/**
 * Turns what fetch (or a body read) threw into an UpstreamError. Bun's
 * fetch rejects with `code` ECONNREFUSED, ECONNRESET, ENOTFOUND...; an abort
 * rejects with the signal's reason, which is a `TimeoutReason` when our own
 * timer fired.
 */
export function toUpstreamError(error: unknown, target: string, signal?: AbortSignal): UpstreamError {
  if (error instanceof UpstreamError) return error
  const reason = signal?.aborted ? signal.reason : undefined
  if (reason instanceof TimeoutReason || error instanceof TimeoutReason) {
    const timeout = reason instanceof TimeoutReason ? reason : (error as TimeoutReason)
    return new UpstreamError('timeout', target, `${target}: ${timeout.message}`, { cause: error })
  }
  if (isNamed(error, 'TimeoutError')) {
    return new UpstreamError('timeout', target, `${target}: timed out`, { cause: error })
  }
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : ''
  if (code === 'ECONNREFUSED' || code === 'ConnectionRefused') {
    return new UpstreamError('refused', target, `${target}: connection refused`, { cause: error })
  }
  if (code === 'ECONNRESET' || code === 'ConnectionClosed' || code === 'EPIPE') {
    return new UpstreamError('reset', target, `${target}: connection reset`, { cause: error })
  }
  if (signal?.aborted) {
    return new UpstreamError('error', target, `${target}: aborted (${describe(reason)})`, { cause: error })
  }
  return new UpstreamError('error', target, `${target}: ${describe(error)}`, { cause: error })
}

function isNamed(error: unknown, name: string): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === name
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message || value.name
  return String(value)
}

/** `1500` → `1.5s`, `250` → `250ms`: durations in error texts, as they are configured. */
export function formatMs(ms: number): string {
  return ms >= 1000 && ms % 100 === 0 ? `${ms / 1000}s` : `${ms}ms`
}
