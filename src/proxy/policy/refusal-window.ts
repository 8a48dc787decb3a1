/**
 * After the shadow refuses a connection, it is not tried again for a short
 * window; shadow requests in that window fail at once with the same cause.
 * A refused connect costs the kernel a socket, a SYN and a RST (60-150 µs
 * of CPU on loopback, measured): paid for every request while the
 * shadow is down, it would slow live traffic, which must not notice the
 * shadow at all. nginx does the same for its upstreams (`max_fails=1
 * fail_timeout=10s` by default).
 *
 * Those requests are still compared, as errors with shadow status 0
 * (docs/proxy.md "Forwarding", a shadow that is down), their cause saying that no connection was
 * attempted. Only refusals open the window: a timeout is already bounded by
 * SVC_APP_SHADOW_TIMEOUT and the callbacks bound, a reset may be one bad
 * connection.
 */
export class RefusalWindow {
  private _refusedAt: number | undefined

  /**
   * @param windowMs how long after a refusal no connection is attempted
   * @param now a monotonic clock in ms @default performance.now
   */
  constructor(
    readonly windowMs: number,
    private readonly _now: () => number = () => performance.now(),
  ) {}

  /** Milliseconds since the last refusal when still inside the window, else undefined. */
  refusedAgo(): number | undefined {
    if (this._refusedAt === undefined) return undefined
    const ago = this._now() - this._refusedAt
    if (ago < this.windowMs) return ago
    this._refusedAt = undefined
    return undefined
  }

  recordRefusal(): void {
    this._refusedAt = this._now()
  }

  /** A response came back: the upstream is reachable again. */
  recordSuccess(): void {
    this._refusedAt = undefined
  }
}
