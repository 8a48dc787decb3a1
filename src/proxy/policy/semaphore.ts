import type { AbortLike } from '../../async/abort-flag.ts'

/**
 * A counting semaphore: at most `limit` holders at a time, waiters served in
 * arrival order. `limit` 0 means unbounded (as 0 does for
 * SVC_APP_MAX_CONCURRENT_CALLBACKS and SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST,
 * docs/reference/configuration.md "Common").
 * Pure bookkeeping: no timers; a waiter gives up through its signal (an
 * AbortSignal or an AbortFlag, `src/async/abort-flag.ts`).
 */

/** `acquire()` gave up because its signal was aborted before a slot freed. */
export class SemaphoreAbortedError extends Error {
  readonly code = 'semaphore-aborted'
  constructor(readonly reason: unknown) {
    super('gave up waiting for a free slot', { cause: reason })
  }
}

interface Waiter {
  resolve: () => void
  reject: (error: unknown) => void
  signal: AbortLike | undefined
  onAbort: (() => void) | undefined
}

export class Semaphore {
  private _inUse = 0
  /** The line; a served waiter's place is emptied, so that it keeps nothing of it until the line is cut. */
  private readonly _waiters: (Waiter | undefined)[] = []
  private _head = 0

  /** @param limit most holders at a time; 0 means unbounded */
  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be an integer >= 0, got ${limit}`)
  }

  /** Slots held now. */
  get inUse(): number {
    return this._inUse
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this._waiters.length - this._head
  }

  /** Takes a slot if one is free now; never waits. */
  tryAcquire(): boolean {
    if (this.limit !== 0 && this._inUse >= this.limit) return false
    this._inUse++
    return true
  }

  /**
   * Takes a slot, waiting in line for one when all are held. Rejects with
   * `SemaphoreAbortedError` if `signal` aborts first (and then holds nothing).
   */
  acquire(signal?: AbortLike): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve()
    if (signal?.aborted) return Promise.reject(new SemaphoreAbortedError(signal.reason))
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined }
      if (signal) {
        waiter.onAbort = () => {
          const index = this._waiters.indexOf(waiter, this._head)
          if (index !== -1) this._waiters.splice(index, 1)
          reject(new SemaphoreAbortedError(signal.reason))
        }
        // Removed by `release`; an abort event fires once, so no `once`
        // option, whose options object costs more than the listener.
        signal.addEventListener('abort', waiter.onAbort)
      }
      this._waiters.push(waiter)
    })
  }

  /** Gives a slot back; the first waiter, if any, takes it over. */
  release(): void {
    if (this._head < this._waiters.length) {
      const waiter = this._waiters[this._head]!
      this._waiters[this._head++] = undefined
      if (this._head === this._waiters.length) {
        this._waiters.length = 0
        this._head = 0
      } else if (this._head > 1024) {
        this._waiters.splice(0, this._head)
        this._head = 0
      }
      if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort)
      // The slot passes straight to the waiter: the count of holders stays.
      waiter.resolve()
      return
    }
    if (this._inUse > 0) this._inUse--
  }
}
