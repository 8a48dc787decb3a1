/**
 * The response-head timeout of our HTTP/1.1 client and of the shadow over
 * fetch (`http1-client.ts`, `shadowOverFetch` in `fetch-client.ts`): it
 * bounds the wait for the response head from the call, a connection slot
 * and the connect included, and never the body that follows
 * (docs/proxy.md "Timeouts"). Live's relay on the raw server has one on
 * every request, the shadow's when SVC_APP_SHADOW_HEAD_TIMEOUT is set.
 */
import { AbortFlag, followAbort, type AbortLike } from '../../async/abort-flag.ts'
import { DeadlineQueue, type Deadline } from '../../async/deadline-queue.ts'
import { HeadTimeoutReason } from './upstream-error.ts'

export interface HeadDeadline {
  /** Aborted when the exchange's own signal is, or with a HeadTimeoutReason when the head is late. */
  readonly signal: AbortLike
  /**
   * The head is in: the deadline is over (its entry leaves the queue now,
   * not when it would have fired: a long body must not keep it, and the
   * entries behind it, for the whole timeout); the exchange's own signal
   * is still followed until `end`.
   */
  readonly headCame: () => void
  /** The exchange is over: no deadline, no following. */
  end(): void
}

/** Starts a head deadline of the client's length for one exchange. */
export type HeadDeadlines = (signal: AbortLike, headIn: () => boolean) => HeadDeadline

/**
 * One client's head deadlines, all `ms` long, on one timer
 * (`deadline-queue.ts`): a setTimeout and a clearTimeout per request cost
 * the raw server measurably more.
 */
export function headDeadlines(ms: number): HeadDeadlines {
  const queue = new DeadlineQueue<Waiting>(ms, (waiting) => waiting.expire())
  return (signal, headIn) => new Waiting(queue, signal, headIn)
}

/**
 * A flag, not an AbortController: a comparison's exchange is ended through
 * an `AbortFlag` already (`src/async/abort-flag.ts`), and fetch gets a real
 * signal made from this one.
 */
class Waiting implements HeadDeadline {
  readonly signal = new AbortFlag()
  private readonly unfollow: () => void
  private readonly deadline: Deadline

  constructor(
    private readonly queue: DeadlineQueue<Waiting>,
    source: AbortLike,
    private readonly headIn: () => boolean,
  ) {
    this.unfollow = followAbort(source, (reason) => this.signal.abort(reason))
    this.deadline = queue.add(this)
  }

  readonly headCame = (): void => this.deadline.cancel()

  expire(): void {
    if (!this.headIn()) this.signal.abort(new HeadTimeoutReason(this.queue.ms))
  }

  end(): void {
    this.deadline.cancel()
    this.unfollow()
  }
}
