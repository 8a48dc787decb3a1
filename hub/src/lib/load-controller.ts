import type { ReactiveController, ReactiveControllerHost } from 'lit'
import { isAbortError } from './api-error.ts'

/**
 * Async data for a component, after @lit/task: the task runs when its
 * arguments change, gets an AbortSignal that is aborted when the arguments
 * change again or the host leaves the page, and exposes explicit pending,
 * complete and error states. The last value is kept while a new one loads,
 * so paging a table does not flash an empty state.
 */
export class LoadController<T, A extends readonly unknown[]> implements ReactiveController {
  /** The last value loaded, if any. */
  value: T | undefined = undefined
  error: unknown = undefined
  pending = false
  /** True once a run finished, with a value or an error. */
  settled = false

  #args: A | undefined
  #abort: AbortController | undefined
  #run = 0

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly task: (args: A, signal: AbortSignal) => Promise<T>,
    private readonly args: () => A | undefined,
  ) {
    host.addController(this)
  }

  hostUpdate(): void {
    const next = this.args()
    if (next === undefined) return
    if (this.#args && sameArgs(this.#args, next)) return
    this.#args = next
    void this.#start(next)
  }

  hostDisconnected(): void {
    this.#abort?.abort()
    // Loaded again on reconnection.
    this.#args = undefined
  }

  /** Runs the task again with the same arguments (a retry button, a refresh). */
  reload(): void {
    if (this.#args) void this.#start(this.#args)
  }

  async #start(args: A): Promise<void> {
    this.#abort?.abort()
    const abort = new AbortController()
    this.#abort = abort
    const run = ++this.#run
    this.pending = true
    this.error = undefined
    this.host.requestUpdate()
    try {
      const value = await this.task(args, abort.signal)
      if (run !== this.#run) return
      this.value = value
      this.error = undefined
    } catch (error) {
      if (run !== this.#run || isAbortError(error)) return
      this.error = error
    }
    this.pending = false
    this.settled = true
    this.host.requestUpdate()
  }
}

function sameArgs(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]))
}
