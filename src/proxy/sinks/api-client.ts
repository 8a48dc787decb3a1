/**
 * Calls to the API (API mode): bearer key, retries with a doubling delay
 * within one overall deadline on network errors, 5xx, 429 and 503
 * (Retry-After honoured), never on other 4xx; every attempt goes through
 * the circuit breaker (docs/proxy.md "API mode"). Which answers count
 * against the API is `classifyApiAnswer`'s table (`retry-policy.ts`).
 */
import { BreakerOpenError, type CircuitBreaker } from '../policy/circuit-breaker.ts'
import {
  classifyApiAnswer,
  nextRetryDelayMs,
  parseRetryAfter,
  retriesExhausted,
  type ApiAnswerKind,
  type RetryPolicy,
} from '../policy/retry-policy.ts'
import type { UpstreamClient } from '../upstream/upstream-client.ts'
import { TimeoutReason, toUpstreamError, UpstreamError } from '../upstream/upstream-error.ts'

export type ApiCallOutcome =
  | { readonly kind: 'ok'; readonly status: number; readonly text: string }
  /** This call was refused for what it carries (a 4xx but 401, 403, 404, 429; a 500 marked `capture_rejected`): not retried. */
  | { readonly kind: 'rejected'; readonly status: number; readonly text: string }
  /** 401, 403, 404: the key or the resource is refused, as it will be for every call; not retried, a breaker failure. */
  | { readonly kind: 'refused'; readonly status: number; readonly text: string }
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

/** A response that counts as a breaker failure: thrown inside `breaker.execute()`. */
class FailedStatus extends Error {
  constructor(
    readonly kind: 'refused' | 'unavailable',
    readonly status: number,
    readonly text: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(`HTTP ${status}`)
  }
}

interface Answer {
  readonly kind: Exclude<ApiAnswerKind, 'refused' | 'unavailable'>
  readonly status: number
  readonly text: string
  readonly retryAfterMs: number | undefined
}

const isThrottled = (answer: Answer) => answer.kind === 'throttled'

export function createApiClient(options: ApiClientOptions): ApiClient {
  const { upstream, policy, breaker } = options
  const sleep = options.sleep ?? abortableSleep
  const now = options.now ?? (() => performance.now())
  const authorization = `Bearer ${options.apiKey}`

  async function attempt(call: ApiCall, signal: AbortSignal): Promise<Answer> {
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
    const kind = classifyApiAnswer(status, text)
    const retryAfterMs =
      kind === 'throttled' || kind === 'unavailable'
        ? parseRetryAfter(exchange.response.headers.get('retry-after'), Date.now())
        : undefined
    if (kind === 'refused' || kind === 'unavailable') throw new FailedStatus(kind, status, text, retryAfterMs)
    return { kind, status, text, retryAfterMs }
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
          const answer = await breaker.execute(() => attempt(call, signal), isThrottled)
          if (answer.kind !== 'throttled') return { kind: answer.kind, status: answer.status, text: answer.text }
          lastReason = `HTTP ${answer.status}`
          retryAfterMs = answer.retryAfterMs
        } catch (error) {
          if (error instanceof BreakerOpenError) return { kind: 'breaker-open' }
          if (call.signal?.aborted) return { kind: 'aborted' }
          if (error instanceof FailedStatus) {
            if (error.kind === 'refused') return { kind: 'refused', status: error.status, text: error.text }
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
