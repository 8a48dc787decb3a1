/**
 * Cooperative time slicing for long work on the event loop (a preview or
 * a re-diff job in the API process): `pause()` returns at once until
 * `sliceMs` of work have passed since the last pause, then yields to the
 * event loop (setImmediate: pending I/O runs first), so other requests
 * wait at most about one slice.
 */
export class TimeSlicer {
  private started = performance.now()

  /** @param sliceMs work between two yields, in ms. @default 8 */
  constructor(private readonly sliceMs = 8) {}

  async pause(): Promise<void> {
    if (performance.now() - this.started < this.sliceMs) return
    await new Promise<void>((resolve) => setImmediate(resolve))
    this.started = performance.now()
  }
}
