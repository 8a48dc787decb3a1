/**
 * The response-head timeout of the shadow over fetch (`shadowOverFetch`
 * in `fetch-client.ts`): it bounds the wait for the response head from
 * the call, a connection slot included, and never the body that follows
 * (docs/proxy.md "Timeouts"), as SVC_APP_SHADOW_HEAD_TIMEOUT asks. Our
 * HTTP/1.1 client bounds the head the same way, with the exchange itself
 * as the queue's item (`http1-client.ts`).
 */
import { FollowingFlag, type AbortLike } from '../../async/abort-flag.ts'
import { DeadlineQueue, type Deadline } from '../../async/deadline-queue.ts'
import { HeadTimeoutReason } from './upstream-error.ts'

export interface HeadDeadline {
  /** Aborted when the exchange's own signal is, or with a HeadTimeoutReason when the head is late. */
  readonly signal: AbortLike
  /**
   * The head is in: the deadline is over (its entry leaves the queue now,
   * not when it would have fired: a long body must not keep it, and the
   * entries behind it, for the whole timeout); the exchange's own signal
   * is still followed until `end`. The client must call it when the head
   * comes: a deadline that fires aborts the exchange.
   */
  headCame(): void
  /** The exchange is over: no deadline, no following. */
  end(): void
}

/** Starts a head deadline of the client's length for one exchange, following its signal. */
export type HeadDeadlines = (signal: AbortLike) => HeadDeadline

/**
 * One client's head deadlines, all `ms` long, on one timer
 * (`deadline-queue.ts`): a setTimeout and a clearTimeout per request cost
 * the raw server measurably more.
 */
export function headDeadlines(ms: number): HeadDeadlines {
  const queue = new DeadlineQueue<Waiting>(ms, (waiting) => waiting.expire())
  return (signal) => new Waiting(queue, signal)
}

/**
 * A flag, not an AbortController: a comparison's exchange is ended through
 * an `AbortFlag` already (`src/async/abort-flag.ts`), and fetch gets a real
 * signal made from this one.
 */
class Waiting implements HeadDeadline {
  readonly signal: FollowingFlag
  private readonly deadline: Deadline

  constructor(
    private readonly queue: DeadlineQueue<Waiting>,
    source: AbortLike,
  ) {
    this.signal = new FollowingFlag(source)
    this.deadline = queue.add(this)
  }

  /** Fired by the queue: the head is late (`headCame` would have cancelled the deadline). */
  expire(): void {
    this.signal.abort(new HeadTimeoutReason(this.queue.ms))
  }

  headCame(): void {
    this.deadline.cancel()
  }

  end(): void {
    this.deadline.cancel()
    this.signal.unfollow()
  }
}
