/**
 * The background comparisons in flight, so that shutdown can wait for them
 * within a bound and then abort the rest (docs/proxy.md "Shutdown":
 * background comparisons and reports get a bounded drain).
 */
import { within } from '../../async/within.ts'

/**
 * A background task, which says itself when it is over
 * (`BackgroundTasks.finished`): the shadow handler's comparisons, objects
 * already, so that tracking one costs no promise or closure of its own.
 */
export interface TrackedTask {
  /** The drain's signal when the task was tracked; set by `track`. */
  drainSignal: AbortSignal
  /** Called once when the drain aborts the task, after its signal: a direct call, no event listener per task. */
  onDrainAbort(reason: unknown): void
}

export interface DrainResult {
  /** Tasks that finished within the bound. */
  readonly completed: number
  /** Tasks still running at the bound, then aborted. */
  readonly aborted: number
}

/** The reason given to tasks aborted at the end of a drain. */
export class DrainAbortReason extends Error {
  readonly code = 'drain-timeout'
  constructor(readonly timeoutMs: number) {
    super(`shutdown: not finished within the drain bound of ${timeoutMs} ms`)
  }
}

export class BackgroundTasks {
  private readonly _running = new Set<TrackedTask>()
  private _idleWaiters: Array<() => void> = []
  /**
   * Only a drain aborts tasks, and it aborts all those running at once:
   * they share one controller (an AbortController per task cost about a
   * microsecond each), replaced by a fresh one after each drain's abort so
   * that a task started later starts unaborted.
   */
  private _controller = new AbortController()

  get size(): number {
    return this._running.size
  }

  /** Counts `task` as running until `finished(task)`; sets its `drainSignal`. */
  track(task: TrackedTask): void {
    task.drainSignal = this._controller.signal
    this._running.add(task)
  }

  /** `task` is over (once; a second call does nothing). */
  finished(task: TrackedTask): void {
    if (!this._running.delete(task)) return
    if (this._running.size === 0 && this._idleWaiters.length > 0) {
      const waiters = this._idleWaiters
      this._idleWaiters = []
      for (const wake of waiters) wake()
    }
  }

  /** Resolves when no task is running. */
  whenIdle(): Promise<void> {
    if (this._running.size === 0) return Promise.resolve()
    return new Promise((resolve) => this._idleWaiters.push(resolve))
  }

  /**
   * Waits up to `timeoutMs` for every task (those started meanwhile too),
   * then aborts the ones left and waits for them to settle, which an
   * aborted task does promptly.
   */
  async drain(timeoutMs: number): Promise<DrainResult> {
    const before = this._running.size
    const timedOut = await within(this.whenIdle().then(() => false), timeoutMs, () => true)
    if (!timedOut) return { completed: before, aborted: 0 }
    const left = this._running.size
    const reason = new DrainAbortReason(timeoutMs)
    // The tasks not aborted yet (a drain running beside this one may have) hold the current signal.
    const unaborted = [...this._running].filter((task) => !task.drainSignal.aborted)
    const controller = this._controller
    this._controller = new AbortController()
    controller.abort(reason)
    for (const task of unaborted) task.onDrainAbort(reason)
    await this.whenIdle()
    return { completed: Math.max(0, before - left), aborted: left }
  }
}
