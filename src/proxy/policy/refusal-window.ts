/**
 * After the shadow refuses a connection, it is not tried again for a short
 * window; shadow requests in that window fail at once with the same cause.
 * A refused connect costs the kernel a socket, a SYN and a RST (60-150 µs
 * of CPU on loopback, measured): paid for every request while the
 * shadow is down, it would slow live traffic, which must not notice the
 * shadow at all. nginx does the same for its upstreams (`max_fails=1
 * fail_timeout=10s` by default).
 *
 * Once the window has passed, one request tries the shadow again (the
 * probe) and the others go on unattempted until it ends, for at most one
 * more window. A window that simply ran out would let every request that
 * arrives before the next refusal comes back try the shadow: about 45
 * refused connects a second at 59,000 requests a second on loopback
 * (measured), each compared on the full path.
 *
 * Those requests are still compared, as errors with shadow status 0
 * (docs/proxy.md "Forwarding", a shadow that is down), their cause saying that no connection was
 * attempted. Only refusals open the window: any other end of an exchange
 * (a response, a timeout, a reset) closes it, since a timeout is already
 * bounded by SVC_APP_SHADOW_TIMEOUT and the callbacks bound, and a reset
 * may be one bad connection.
 */
export class RefusalWindow {
  private _refusedAt: number | undefined
  private _probeSentAt: number | undefined

  /**
   * @param windowMs how long after a refusal no connection is attempted,
   *   and how long a probe is waited for
   * @param now a monotonic clock in ms @default performance.now
   */
  constructor(
    readonly windowMs: number,
    private readonly _now: () => number = () => performance.now(),
  ) {}

  /**
   * Whether a request would not be attempted now: inside the window, or
   * while a probe is out. Changes nothing: a request that goes on asks
   * `mayAttempt` where it would connect.
   */
  get knownDown(): boolean {
    return this._refusedAt !== undefined && this.downAt(this._refusedAt, this._now())
  }

  /**
   * For a request about to be sent to the shadow: false when it is known
   * to be down (see `knownDown`); true otherwise, and when a window has
   * passed, this request is the probe.
   */
  mayAttempt(): boolean {
    if (this._refusedAt === undefined) return true
    // One clock read: the probe is sent at the time it was let through.
    const now = this._now()
    if (this.downAt(this._refusedAt, now)) return false
    this._probeSentAt = now
    return true
  }

  private downAt(refusedAt: number, now: number): boolean {
    if (now - refusedAt < this.windowMs) return true
    return this._probeSentAt !== undefined && now - this._probeSentAt < this.windowMs
  }

  recordRefusal(): void {
    this._refusedAt = this._now()
    this._probeSentAt = undefined
  }

  /** An exchange ended otherwise (a response, a timeout, a reset): the shadow is not refusing. */
  recordNotRefused(): void {
    this._refusedAt = undefined
    this._probeSentAt = undefined
  }
}
