/**
 * Measures how late the event loop runs a timer: a chain of `setTimeout`s,
 * each noting how far past its due time it fired. One timer per interval is
 * all it costs; the timer is unref'd so it never keeps the process alive.
 */
export class EventLoopLag {
  /** The lateness of the last timer, in seconds. */
  lastSeconds = 0
  /** The largest lateness since the last `takeMax()`, in seconds. */
  private maxSeconds = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private due = 0

  /**
   * @param intervalMs how often to sample
   * @param now monotonic clock in milliseconds, for tests
   */
  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  start(): void {
    if (this.timer === undefined) this.schedule()
  }

  /**
   * The largest lateness since the previous call, which starts a new window:
   * one stall between two scrapes shows up even though later samples are fine.
   */
  takeMax(): number {
    const max = this.maxSeconds
    this.maxSeconds = 0
    return max
  }

  stop(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private schedule(): void {
    this.due = this.now() + this.intervalMs
    this.timer = setTimeout(() => {
      this.lastSeconds = Math.max(0, this.now() - this.due) / 1000
      if (this.lastSeconds > this.maxSeconds) this.maxSeconds = this.lastSeconds
      this.schedule()
    }, this.intervalMs)
    this.timer.unref()
  }
}
