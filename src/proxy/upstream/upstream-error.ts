/**
 * Why an upstream exchange failed, as a value (an outcome, not a
 * thrown error): it picks the client's status for live (504 on a timeout, 502
 * otherwise) and becomes the error text stored as the failed side's body
 * (status 0, the error text as body: docs/diff.md "What is compared").
 *
 * The texts start with the target and say the kind in fixed words, which
 * the stored errors are classified by: `timed out`, `connection refused`,
 * `connection reset`, `response too large (<what>)` and `bad response:
 * <what>` (docs/proxy.md "The shadow's client").
 */
import type { AbortLike } from '../../async/abort-flag.ts'

/**
 * `too_large`: a head, trailer section or body over its bound;
 * `bad_response`: bytes that do not make a response the proxy takes
 * (malformed, a status outside 100..599, framed two ways).
 */
export const UPSTREAM_FAILURES = ['timeout', 'refused', 'reset', 'too_large', 'bad_response', 'error'] as const
export type UpstreamFailureKind = (typeof UPSTREAM_FAILURES)[number]

/** The codes Bun's fetch rejects with for bytes that do not make a response (seen on Bun 1.4.5). */
const FETCH_BAD_RESPONSE: ReadonlySet<string> = new Set(['Malformed_HTTP_Response', 'InvalidHTTPResponse', 'InvalidContentLength'])

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

/** The reason given to an AbortController or an AbortFlag when a timeout, not a caller, aborts it. */
export class TimeoutReason extends Error {
  readonly code = 'timeout'
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${formatMs(timeoutMs)}`)
  }
}

/**
 * The shadow's response head did not come within its own timeout
 * (SVC_APP_SHADOW_HEAD_TIMEOUT); still `timed out`, the words stored
 * errors are classified by.
 */
export class HeadTimeoutReason extends TimeoutReason {
  constructor(timeoutMs: number) {
    super(timeoutMs)
    this.message = `${this.message} waiting for the response head`
  }
}

/**
 * Turns what fetch (or a body read) threw into an UpstreamError. Bun's
 * fetch rejects with `code` ECONNREFUSED, ECONNRESET, ENOTFOUND...; an abort
 * rejects with the signal's reason, which is a `TimeoutReason` when our own
 * timer fired.
 */
export function toUpstreamError(error: unknown, target: string, signal?: AbortLike): UpstreamError {
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
  // Our own reader's (`response-head.ts`), whose messages are the text after the target.
  if (code === 'bad-response') return new UpstreamError('bad_response', target, `${target}: ${describe(error)}`, { cause: error })
  if (code === 'too-large') return new UpstreamError('too_large', target, `${target}: ${describe(error)}`, { cause: error })
  // Bun's fetch names what it refused in `code`.
  if (code === 'ResponseHeadersTooLarge') return responseTooLarge(target, 'head, refused by fetch', error)
  if (FETCH_BAD_RESPONSE.has(code)) return badResponse(target, `malformed (fetch: ${code})`, error)
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

/** `<target>: response too large (<what>)`. */
export function responseTooLarge(target: string, what: string, cause?: unknown): UpstreamError {
  return new UpstreamError('too_large', target, `${target}: response too large (${what})`, { cause })
}

/** `<target>: bad response: <what>`. */
export function badResponse(target: string, what: string, cause?: unknown): UpstreamError {
  return new UpstreamError('bad_response', target, `${target}: bad response: ${what}`, { cause })
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
