/**
 * When and how long the API client waits before trying again (SPEC.md
 * "Proxy, API mode": SVC_APP_MAX_RETRIES, SVC_APP_RETRY_DELAY "doubles on
 * each attempt", all within SVC_APP_API_TIMEOUT). Pure: the caller owns
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
 * DESIGN.md "Proxy behaviour": retries "on network errors, 5xx and 429
 * (honouring Retry-After), never on other 4xx". A 4xx means the request
 * itself is wrong; sending it again cannot help.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500
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
