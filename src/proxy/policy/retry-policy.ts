/**
 * When and how long the API client waits before trying again (docs/proxy.md
 * "API mode": SVC_APP_MAX_RETRIES, SVC_APP_RETRY_DELAY doubled on each
 * attempt, all within SVC_APP_API_TIMEOUT). Pure: the caller owns
 * the clock and the sleeping.
 */

export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number
  /** Delay before the first retry; doubled for each one after. */
  readonly initialDelayMs: number
  /** Overall deadline of the call, every attempt and wait included. */
  readonly deadlineMs: number
}

/**
 * What an answer of the API says about the call and about the API; the
 * table with its reasons is docs/proxy.md "Which answers count against
 * the API":
 *
 * | answer                                             | kind          | retried | breaker |
 * |----------------------------------------------------|---------------|---------|---------|
 * | below 400                                          | `ok`          | no      | success |
 * | other 4xx; a 500 marked `capture_rejected`         | `rejected`    | no      | success |
 * | 401, 403, 404                                      | `refused`     | no      | failure |
 * | 429, 503                                           | `throttled`   | yes     | neither |
 * | other 5xx                                          | `unavailable` | yes     | failure |
 */
export const API_ANSWER_KINDS = ['ok', 'rejected', 'refused', 'throttled', 'unavailable'] as const
export type ApiAnswerKind = (typeof API_ANSWER_KINDS)[number]

const SYSTEMATIC_REFUSALS: ReadonlySet<number> = new Set([401, 403, 404])

/**
 * Classifies an answer by its status and, for a 500, its problem body: the
 * API marks a 500 that this call's content caused (a row the database
 * refused) with the RFC 7807 extension member `"capture_rejected": true`;
 * sending it again would fail the same way, and it says nothing of the
 * API's health.
 */
export function classifyApiAnswer(status: number, body: string): ApiAnswerKind {
  if (status < 400) return 'ok'
  if (status === 429 || status === 503) return 'throttled'
  if (SYSTEMATIC_REFUSALS.has(status)) return 'refused'
  if (status < 500) return 'rejected'
  if (status === 500 && isCaptureRejected(body)) return 'rejected'
  return 'unavailable'
}

/** Whether `body` is a JSON object with `capture_rejected: true`; anything else (not JSON, no member) is not. */
export function isCaptureRejected(body: string): boolean {
  // Cheap test first: an ordinary 500 needs no parse.
  if (!body.includes('capture_rejected')) return false
  try {
    const problem: unknown = JSON.parse(body)
    return typeof problem === 'object' && problem !== null && (problem as { capture_rejected?: unknown }).capture_rejected === true
  } catch {
    return false
  }
}

/**
 * Whether an answer of this kind asks for another attempt (docs/proxy.md "Which
 * answers count against the API": never on other 4xx).
 */
export function isRetryableAnswer(kind: ApiAnswerKind): boolean {
  return kind === 'throttled' || kind === 'unavailable'
}

/** Delay before retry number `retry` (1-based): initial × 2^(retry-1). */
export function backoffDelayMs(policy: RetryPolicy, retry: number): number {
  return policy.initialDelayMs * 2 ** (retry - 1)
}

/**
 * RFC 9110 §10.2.3: `Retry-After = HTTP-date / delay-seconds`. Returns the
 * wait in ms (0 for a date in the past), or undefined when absent or
 * unparsable.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const date = Date.parse(text)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - nowMs)
}

/** Whether retry number `retry` (1-based) is past SVC_APP_MAX_RETRIES. */
export function retriesExhausted(policy: RetryPolicy, retry: number): boolean {
  return retry > policy.maxRetries
}

/**
 * The wait before retry number `retry`, or undefined when no retry is left
 * or the wait would end past the deadline. A server's Retry-After, when
 * given, replaces the backoff delay.
 */
export function nextRetryDelayMs(
  policy: RetryPolicy,
  retry: number,
  elapsedMs: number,
  retryAfterMs: number | undefined,
): number | undefined {
  if (retriesExhausted(policy, retry)) return undefined
  const delay = retryAfterMs ?? backoffDelayMs(policy, retry)
  return elapsedMs + delay < policy.deadlineMs ? delay : undefined
}
