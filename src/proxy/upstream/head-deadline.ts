/**
 * The shadow's response-head timeout, the same for both of its clients
 * (`http1-client.ts`, `shadowOverFetch` in `fetch-client.ts`): it bounds
 * the wait for the response head from the call, a connection slot and the
 * connect included, and never the body that follows (docs/proxy.md
 * "Timeouts").
 */
import { AbortFlag, followAbort, type AbortLike } from '../../async/abort-flag.ts'
import { HeadTimeoutReason } from './upstream-error.ts'

export interface HeadDeadline {
  /** Aborted when the exchange's own signal is, or with a HeadTimeoutReason when the head is late. */
  readonly signal: AbortLike
  /** The exchange is over: no timer, no following. */
  end(): void
}

/**
 * A flag, not an AbortController: a comparison's exchange is ended through
 * an `AbortFlag` already (`src/async/abort-flag.ts`), and fetch gets a real
 * signal made from this one. Made only when a head timeout is configured.
 * @param headIn whether the head has come; asked when `ms` have passed
 */
export function headDeadline(signal: AbortLike, ms: number, headIn: () => boolean): HeadDeadline {
  const either = new AbortFlag()
  const unfollow = followAbort(signal, (reason) => either.abort(reason))
  const timer = setTimeout(() => {
    if (!headIn()) either.abort(new HeadTimeoutReason(ms))
  }, ms)
  return {
    signal: either,
    end() {
      clearTimeout(timer)
      unfollow()
    },
  }
}
