export interface ThrottleOptions {
  /** The least time between two admissions of the same key, in milliseconds. */
  readonly intervalMs: number
  /**
   * A monotonic clock in milliseconds.
   * @default () => performance.now()
   */
  readonly now?: () => number
  /**
   * Keys tracked at most; beyond it the idle ones, then the oldest, are forgotten.
   * @default 1000
   */
  readonly maxKeys?: number
}

interface Window {
  admittedAt: number
  suppressed: number
}

/**
 * Admits one event per key per interval and counts the ones it turns away,
 * so a flood of identical warnings becomes one line per interval that says
 * how many were left out. Pure bookkeeping: no timers, an injectable clock.
 */
export class Throttle {
  private readonly windows = new Map<string, Window>()
  private readonly intervalMs: number
  private readonly now: () => number
  private readonly maxKeys: number

  constructor(options: ThrottleOptions) {
    this.intervalMs = options.intervalMs
    this.now = options.now ?? (() => performance.now())
    this.maxKeys = options.maxKeys ?? 1000
  }

  /**
   * `undefined` when the key was admitted less than an interval ago (the
   * event is counted as suppressed); otherwise the number suppressed since
   * the previous admission, and the key's interval starts again.
   */
  admit(key: string): number | undefined {
    const now = this.now()
    const window = this.windows.get(key)
    if (window === undefined) {
      if (this.windows.size >= this.maxKeys) this.evict(now)
      this.windows.set(key, { admittedAt: now, suppressed: 0 })
      return 0
    }
    if (now - window.admittedAt < this.intervalMs) {
      window.suppressed++
      return undefined
    }
    const suppressed = window.suppressed
    window.admittedAt = now
    window.suppressed = 0
    return suppressed
  }

  /** The keys with suppressed events and their counts; the counts restart from 0. */
  drain(): Array<[key: string, suppressed: number]> {
    const out: Array<[string, number]> = []
    for (const [key, window] of this.windows) {
      if (window.suppressed === 0) continue
      out.push([key, window.suppressed])
      window.suppressed = 0
    }
    return out
  }

  private evict(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.suppressed === 0 && now - window.admittedAt >= this.intervalMs)
        this.windows.delete(key)
    }
    // Still full: every key is busy; drop the oldest rather than grow without bound.
    if (this.windows.size >= this.maxKeys) {
      const oldest = this.windows.keys().next()
      if (!oldest.done) this.windows.delete(oldest.value)
    }
  }
}
