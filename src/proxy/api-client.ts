/**
 * Calls to the API (API mode): bearer key, retries with a doubling delay
 * within one overall deadline on network errors, 5xx and 429 (Retry-After
 * honoured), never on other 4xx; every attempt goes through the circuit
 * breaker (DESIGN.md "Proxy behaviour"). A 4xx is not a breaker failure:
 * the API answered, the request was wrong.
 */
import { BreakerOpenError, type CircuitBreaker } from './circuit-breaker.ts'
import { isRetryableStatus, nextRetryDelayMs, parseRetryAfter, retriesExhausted, type RetryPolicy } from './retry-policy.ts'
import type { UpstreamClient } from './upstream-pool.ts'
import { TimeoutReason, toUpstreamError, UpstreamError } from './upstream-error.ts'

export type ApiCallOutcome =
  | { readonly kind: 'ok'; readonly status: number; readonly text: string }
  /** A 4xx other than 429: not retried. */
  | { readonly kind: 'rejected'; readonly status: number; readonly text: string }
  /** Every attempt failed: the retries ran out, or the deadline left no room for another. */
  | { readonly kind: 'failed'; readonly reason: string; readonly attempts: number; readonly endedBy: 'retries' | 'deadline' }
  /** The breaker refused the call (open, or half-open with its trial calls taken). */
  | { readonly kind: 'breaker-open' }
  /** The caller's signal aborted it (shutdown). */
  | { readonly kind: 'aborted' }

export interface ApiCall {
  readonly method: 'GET' | 'POST'
  /** Path under the API URL, such as `/gates/<id>`. */
  readonly path: string
  /** A JSON text. */
  readonly body?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly signal?: AbortSignal
}

export interface ApiClient {
  call(call: ApiCall): Promise<ApiCallOutcome>
}

export interface ApiClientOptions {
  /** The `api` upstream (its metrics carry `svc_target="api"`). */
  readonly upstream: UpstreamClient
  readonly apiKey: string
  readonly policy: RetryPolicy
  readonly breaker: CircuitBreaker
  /** @default a timer; tests may shorten it */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /** A monotonic clock in ms, for the deadline. @default performance.now */
  readonly now?: () => number
}

/** A response that asks for another attempt: 5xx or 429. */
class RetryableStatus extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs: number | undefined,
  ) {
    super(`HTTP ${status}`)
  }
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const { upstream, policy, breaker } = options
  const sleep = options.sleep ?? abortableSleep
  const now = options.now ?? (() => performance.now())
  const authorization = `Bearer ${options.apiKey}`

  async function attempt(call: ApiCall, signal: AbortSignal): Promise<{ status: number; text: string }> {
    const headers = new Headers(call.headers)
    headers.set('authorization', authorization)
    headers.set('accept', 'application/json')
    if (call.body !== undefined) headers.set('content-type', 'application/json')
    const exchange = await upstream.send({
      method: call.method,
      pathAndQuery: call.path,
      headers,
      body: call.body === undefined ? null : new TextEncoder().encode(call.body),
      signal,
    })
    let text: string
    try {
      text = await exchange.response.text()
    } catch (error) {
      throw toUpstreamError(error, 'api', signal)
    } finally {
      exchange.done()
    }
    const { status } = exchange.response
    if (isRetryableStatus(status)) {
      throw new RetryableStatus(status, parseRetryAfter(exchange.response.headers.get('retry-after'), Date.now()))
    }
    return { status, text }
  }

  return {
    async call(call) {
      const started = now()
      let lastReason = 'no attempt made'
      for (let retry = 0; ; retry++) {
        const remaining = policy.deadlineMs - (now() - started)
        if (remaining <= 0) return { kind: 'failed', reason: `${lastReason} (deadline reached)`, attempts: retry, endedBy: 'deadline' }
        const timeout = new AbortController()
        const timer = setTimeout(() => timeout.abort(new TimeoutReason(policy.deadlineMs)), remaining)
        const signal = call.signal ? AbortSignal.any([call.signal, timeout.signal]) : timeout.signal
        let retryAfterMs: number | undefined
        try {
          const { status, text } = await breaker.execute(() => attempt(call, signal))
          return status < 400 ? { kind: 'ok', status, text } : { kind: 'rejected', status, text }
        } catch (error) {
          if (error instanceof BreakerOpenError) return { kind: 'breaker-open' }
          if (call.signal?.aborted) return { kind: 'aborted' }
          if (error instanceof RetryableStatus) {
            lastReason = error.message
            retryAfterMs = error.retryAfterMs
          } else {
            lastReason = (error instanceof UpstreamError ? error : toUpstreamError(error, 'api', signal)).message
          }
        } finally {
          clearTimeout(timer)
        }
        const delay = nextRetryDelayMs(policy, retry + 1, now() - started, retryAfterMs)
        if (delay === undefined) {
          const endedBy = retriesExhausted(policy, retry + 1) ? 'retries' : 'deadline'
          return { kind: 'failed', reason: lastReason, attempts: retry + 1, endedBy }
        }
        try {
          await sleep(delay, call.signal)
        } catch {
          return { kind: 'aborted' }
        }
      }
    },
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
