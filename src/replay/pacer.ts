/**
 * Requests at most `rate` per second, however many workers ask (docs/ci.md
 * "Replay"): each take() is given the next start time, at least 1/rate
 * after the previous one. A start that comes late is never made up for by
 * a burst afterwards: the next one is still 1/rate later, so the rate
 * holds over any stretch of time, not only on average.
 */
export class Pacer {
  private next = 0

  /** @param rate requests per second; Infinity for no limit */
  constructor(
    private readonly rate: number,
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<unknown> = (ms) => Bun.sleep(ms),
  ) {}

  /** Resolves when the caller may start its request. */
  async take(): Promise<void> {
    if (this.rate === Infinity) return
    const now = this.now()
    const start = Math.max(now, this.next)
    this.next = start + 1000 / this.rate
    if (start > now) await this.sleep(start - now)
  }
}
