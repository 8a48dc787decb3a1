/**
 * At most `limit` events in any window of `windowMs` (a sliding log): the
 * noise check's repeats, which are extra requests to live, are bounded by
 * SVC_APP_NOISE_MAX_PER_SECOND however the traffic bunches up
 * (docs/proxy.md "Noise check"). A token bucket would let twice the limit
 * through in some one-second windows (a full bucket, then a second of
 * refill). The log holds one timestamp per event allowed in the last
 * window, so `limit` is bounded where it is configured.
 */
export class RateWindow {
  /** When each of the last `limit` allowed events happened, oldest at `next`. */
  private readonly times: Float64Array
  private next = 0

  /**
   * @param limit events allowed per window, a whole number of at least 1
   * @param now a monotonic clock in ms @default performance.now
   */
  constructor(
    readonly limit: number,
    readonly windowMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be an integer >= 1, got ${limit}`)
    this.times = new Float64Array(limit).fill(Number.NEGATIVE_INFINITY)
  }

  /** Takes a place for one event now; false (nothing taken) when `limit` happened within the last window. */
  tryTake(): boolean {
    const now = this.now()
    // The oldest of the last `limit` events: if it is still inside the window, so are all of them.
    if (now - this.times[this.next]! < this.windowMs) return false
    this.times[this.next] = now
    this.next = (this.next + 1) % this.limit
    return true
  }
}
