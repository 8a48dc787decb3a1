import type { ReactiveController, ReactiveControllerHost } from 'lit'
import { isAbortError } from './api-error.ts'
import { FINAL_JOB_STATES } from './types.ts'
import type { RediffJob } from './types.ts'

/** Whether a job will change no more. */
export function isFinal(job: RediffJob): boolean {
  return FINAL_JOB_STATES.includes(job.state)
}

/** A job's progress from 0 to 1; 0 while its total is unknown. */
export function jobProgress(job: RediffJob): number {
  if (job.state === 'done') return 1
  return job.total > 0 ? Math.min(1, job.done / job.total) : 0
}

/**
 * Follows a background job: reads it every `intervalMs` until it is done,
 * failed or cancelled. A failed read stops the polling and is kept in
 * `error` (`resume()` starts again); leaving the page stops it, coming
 * back resumes it. One read at a time: the next waits for the last.
 */
export class JobPoller implements ReactiveController {
  job: RediffJob | undefined = undefined
  error: unknown = undefined

  #timer: ReturnType<typeof setTimeout> | undefined
  #abort: AbortController | undefined
  #connected = false

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly read: (jobId: string, signal: AbortSignal) => Promise<RediffJob>,
    private readonly intervalMs = 1000,
  ) {
    host.addController(this)
  }

  /** Shows `job` and follows it until it ends. */
  watch(job: RediffJob): void {
    this.#stop()
    this.job = job
    this.error = undefined
    this.host.requestUpdate()
    if (!isFinal(job)) this.#next(this.intervalMs)
  }

  /** Reads the job again now and goes on following it (after an error). */
  resume(): void {
    if (!this.job) return
    this.#stop()
    this.error = undefined
    this.host.requestUpdate()
    this.#next(0)
  }

  /** Forgets the job. */
  clear(): void {
    this.#stop()
    this.job = undefined
    this.error = undefined
    this.host.requestUpdate()
  }

  hostConnected(): void {
    this.#connected = true
    if (this.job && !isFinal(this.job) && this.error === undefined) this.#next(0)
  }

  hostDisconnected(): void {
    this.#connected = false
    this.#stop()
  }

  #stop(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#abort?.abort()
    this.#abort = undefined
  }

  #next(delayMs: number): void {
    if (!this.#connected || !this.job) return
    const id = this.job.id
    this.#timer = setTimeout(() => void this.#poll(id), delayMs)
  }

  async #poll(id: string): Promise<void> {
    const abort = new AbortController()
    this.#abort = abort
    try {
      const job = await this.read(id, abort.signal)
      if (abort.signal.aborted) return
      this.job = job
      if (!isFinal(job)) this.#next(this.intervalMs)
    } catch (error) {
      if (abort.signal.aborted || isAbortError(error)) return
      this.error = error
    }
    this.host.requestUpdate()
  }
}
