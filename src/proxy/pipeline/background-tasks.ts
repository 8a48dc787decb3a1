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
  /** Its place in the list of running tasks, kept by `BackgroundTasks`: -1 when not running. */
  trackedIndex: number
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

/**
 * The running tasks are an array, each task knowing its place, not a
 * `Set`: with a task added and deleted per shadowed request, JSC's Set
 * kept what its finished tasks referenced alive through minor (eden)
 * collections, so that a fifth of all the proxy allocated was promoted and
 * had to wait for a full collection (docs/proxy.md "Garbage collection").
 */
export class BackgroundTasks {
  private readonly _running: TrackedTask[] = []
  private _idleWaiters: Array<() => void> = []
  /**
   * Only a drain aborts tasks, and it aborts all those running at once:
   * they share one controller (an AbortController per task cost about a
   * microsecond each), replaced by a fresh one after each drain's abort so
   * that a task started later starts unaborted.
   */
  private _controller = new AbortController()

  get size(): number {
    return this._running.length
  }

  /** Counts `task` as running until `finished(task)`; sets its `drainSignal` and `trackedIndex`. */
  track(task: TrackedTask): void {
    // A task tracked twice would keep a place nobody frees, and the drain would wait for it forever.
    if (task.trackedIndex >= 0 && this._running[task.trackedIndex] === task) throw new Error('a background task is already running')
    task.drainSignal = this._controller.signal
    task.trackedIndex = this._running.length
    this._running.push(task)
  }

  /** `task` is over (once; a second call, or a task this does not run, does nothing). */
  finished(task: TrackedTask): void {
    const running = this._running
    const index = task.trackedIndex
    if (!(index >= 0) || running[index] !== task) return
    // The last task takes the finished one's place: no hole, nothing shifted.
    const last = running.pop()!
    if (last !== task) {
      running[index] = last
      last.trackedIndex = index
    }
    task.trackedIndex = -1
    if (running.length === 0 && this._idleWaiters.length > 0) {
      const waiters = this._idleWaiters
      this._idleWaiters = []
      for (const wake of waiters) wake()
    }
  }

  /** Resolves when no task is running. */
  whenIdle(): Promise<void> {
    if (this._running.length === 0) return Promise.resolve()
    return new Promise((resolve) => this._idleWaiters.push(resolve))
  }

  /**
   * Waits up to `timeoutMs` for every task (those started meanwhile too),
   * then aborts the ones left and waits for them to settle, which an
   * aborted task does promptly.
   */
  async drain(timeoutMs: number): Promise<DrainResult> {
    const before = this._running.length
    const timedOut = await within(this.whenIdle().then(() => false), timeoutMs, () => true)
    if (!timedOut) return { completed: before, aborted: 0 }
    const left = this._running.length
    const reason = new DrainAbortReason(timeoutMs)
    // The tasks not aborted yet (a drain running beside this one may have) hold the current signal.
    const unaborted = this._running.filter((task) => !task.drainSignal.aborted)
    const controller = this._controller
    this._controller = new AbortController()
    controller.abort(reason)
    for (const task of unaborted) task.onDrainAbort(reason)
    await this.whenIdle()
    return { completed: Math.max(0, before - left), aborted: left }
  }
}
