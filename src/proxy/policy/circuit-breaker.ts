/**
 * The proxy's circuit breaker around API calls (docs/proxy.md "API mode";
 * hand-rolled, no dependency). Three moves:
 *
 * | state     | trigger           | condition                                | next      |
 * |-----------|-------------------|------------------------------------------|-----------|
 * | closed    | API call fails    | consecutive failures reach the threshold | open      |
 * | open      | time passes       | the delay has elapsed                    | half-open |
 * | half-open | API call succeeds | successes reach the threshold            | closed    |
 *
 * Decided here as well:
 * - A failure in half-open reopens the breaker and restarts the delay (the
 *   usual breaker: the API is evidently not back yet).
 * - A success in closed resets the count of consecutive failures.
 * - open -> half-open is evaluated lazily, when `state` or `canRequest()` is
 *   read; there is no timer to clear at shutdown. A gauge that reads `state`
 *   when scraped is therefore always current.
 * - Half-open admits at most `halfOpenMaxCalls` calls at a time (by default
 *   `successThreshold`, just enough to close); other calls are refused as if
 *   open, so a burst of captures does not hit an API that may still be down.
 * - A call may end neither way (`onNeutral()`, or `execute()`'s `isNeutral`):
 *   an API that answers 429 is up but busy, which should neither open the
 *   breaker nor close it. It frees its half-open trial slot and changes no
 *   count.
 * - Outcomes reported while open are stale (the call was admitted before
 *   the breaker opened) and ignored. `execute()` also ignores outcomes of
 *   calls admitted under an earlier state, e.g. a slow call from before the
 *   breaker opened that completes during half-open.
 */

export const BREAKER_STATES = ['closed', 'open', 'half-open'] as const
export type BreakerState = (typeof BREAKER_STATES)[number]

export type BreakerStateListener = (state: BreakerState, previous: BreakerState) => void

export interface CircuitBreakerOptions {
  /** Consecutive failures, while closed, that open the breaker (SVC_APP_CB_FAILURE_THRESHOLD). @default 5 */
  failureThreshold?: number
  /** Time from open to half-open, in ms (SVC_APP_CB_DELAY). @default 60000 */
  delayMs?: number
  /** Successes, while half-open, that close the breaker (SVC_APP_CB_SUCCESS_THRESHOLD). @default 2 */
  successThreshold?: number
  /** Calls admitted at the same time while half-open. @default successThreshold */
  halfOpenMaxCalls?: number
  /** Clock in ms; monotonic by default so that wall-clock jumps do not shorten the delay. @default performance.now */
  now?: () => number
}

/** `execute()` was refused: the breaker is open, or half-open with all its trial calls in flight. */
export class BreakerOpenError extends Error {
  readonly code = 'breaker-open'
  constructor(
    readonly state: Exclude<BreakerState, 'closed'>,
    /** Time until the breaker goes half-open; 0 when it already is. */
    readonly retryInMs: number,
  ) {
    super(`circuit breaker is ${state}; API call not attempted`)
  }
}

export class CircuitBreaker {
  readonly failureThreshold: number
  readonly delayMs: number
  readonly successThreshold: number
  readonly halfOpenMaxCalls: number
  private readonly _now: () => number
  private readonly _listeners = new Set<BreakerStateListener>()
  private _state: BreakerState = 'closed'
  /** Bumped on every transition, to recognise outcomes of calls admitted earlier. */
  private _epoch = 0
  private _failures = 0
  private _successes = 0
  private _trials = 0
  private _openedAt = 0

  constructor(options: CircuitBreakerOptions = {}) {
    this.failureThreshold = positiveInteger('failureThreshold', options.failureThreshold ?? 5)
    this.successThreshold = positiveInteger('successThreshold', options.successThreshold ?? 2)
    this.halfOpenMaxCalls = positiveInteger(
      'halfOpenMaxCalls',
      options.halfOpenMaxCalls ?? this.successThreshold,
    )
    const delayMs = options.delayMs ?? 60_000
    if (!(delayMs >= 0 && Number.isFinite(delayMs))) {
      throw new RangeError(`delayMs must be a finite number >= 0, got ${delayMs}`)
    }
    this.delayMs = delayMs
    this._now = options.now ?? (() => performance.now())
  }

  /** The current state, after applying open -> half-open if the delay has elapsed. */
  get state(): BreakerState {
    this._refresh()
    return this._state
  }

  /**
   * Whether a call may be made now. In half-open a `true` takes one trial
   * slot, so every `true` must be followed by exactly one `onSuccess()` or
   * `onFailure()` (`execute()` does this for you).
   */
  canRequest(): boolean {
    this._refresh()
    switch (this._state) {
      case 'closed':
        return true
      case 'open':
        return false
      case 'half-open':
        if (this._trials >= this.halfOpenMaxCalls) return false
        this._trials++
        return true
    }
  }

  /** Reports that an admitted call succeeded. */
  onSuccess(): void {
    this._record(this._epoch, true)
  }

  /** Reports that an admitted call failed. */
  onFailure(): void {
    this._record(this._epoch, false)
  }

  /** Reports that an admitted call ended with an answer that says nothing of the API's health. */
  onNeutral(): void {
    this._release(this._epoch)
  }

  /**
   * Runs `fn` if the breaker admits it and records its outcome: a returned
   * value is a success (neutral when `isNeutral` says so), a thrown error
   * or rejection a failure (rethrown). Throws `BreakerOpenError` without
   * calling `fn` when refused.
   */
  async execute<T>(fn: () => T | PromiseLike<T>, isNeutral?: (result: T) => boolean): Promise<T> {
    if (!this.canRequest()) {
      const state = this._state === 'closed' ? 'open' : this._state
      throw new BreakerOpenError(state, this._retryInMs())
    }
    const epoch = this._epoch
    let result: T
    try {
      result = await fn()
    } catch (error) {
      this._record(epoch, false)
      throw error
    }
    if (isNeutral?.(result)) this._release(epoch)
    else this._record(epoch, true)
    return result
  }

  /**
   * Calls `listener(state, previous)` on every transition, synchronously,
   * after the state has changed (e.g. to set a gauge). Listeners must not
   * throw: an error would surface in the call that caused the transition.
   * Returns a function that unsubscribes.
   */
  onStateChange(listener: BreakerStateListener): () => void {
    this._listeners.add(listener)
    return () => this._listeners.delete(listener)
  }

  private _record(epoch: number, ok: boolean): void {
    if (epoch !== this._epoch) return
    switch (this._state) {
      case 'closed':
        if (ok) this._failures = 0
        else if (++this._failures >= this.failureThreshold) this._moveTo('open')
        return
      case 'open':
        return
      case 'half-open':
        if (!ok) return this._moveTo('open')
        this._trials = Math.max(0, this._trials - 1)
        if (++this._successes >= this.successThreshold) this._moveTo('closed')
        return
    }
  }

  private _release(epoch: number): void {
    if (epoch === this._epoch && this._state === 'half-open') this._trials = Math.max(0, this._trials - 1)
  }

  private _refresh(): void {
    if (this._state === 'open' && this._now() - this._openedAt >= this.delayMs) {
      this._moveTo('half-open')
    }
  }

  private _retryInMs(): number {
    if (this._state !== 'open') return 0
    return Math.max(0, this._openedAt + this.delayMs - this._now())
  }

  private _moveTo(next: BreakerState): void {
    const previous = this._state
    this._state = next
    this._epoch++
    this._failures = 0
    this._successes = 0
    this._trials = 0
    if (next === 'open') this._openedAt = this._now()
    for (const listener of this._listeners) listener(next, previous)
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be an integer >= 1, got ${value}`)
  }
  return value
}
