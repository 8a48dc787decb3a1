/**
 * Timeouts of one fixed length, one per request: live's head timeout
 * (SVC_APP_LIVE_TIMEOUT), the shadow timeout of a comparison
 * (SVC_APP_SHADOW_TIMEOUT) and our clients' head timeouts (the
 * exchanges of `http1-client.ts`, the shadow over fetch's
 * `head-deadline.ts`). One timer serves them all, in place of a
 * setTimeout and a clearTimeout per request, most of which are cleared
 * long before they would fire. Deadlines of one fixed length fall in the
 * order they were set, so the queue is first in, first out, and the timer
 * is armed for the earliest deadline still pending: each fires when its
 * own setTimeout would have, never before.
 */

/** A pending deadline; `cancel` it once what it bounds is over. */
export interface Deadline {
  cancel(): void
}

/** A class, not an object literal: no `cancel` closure per deadline. */
class Entry<T> implements Deadline {
  pending = true

  constructor(
    private readonly queue: DeadlineQueue<T>,
    readonly at: number,
    public item: T | undefined,
  ) {}

  cancel(): void {
    if (!this.pending) return
    this.pending = false
    this.item = undefined
    this.queue.cancelled()
  }
}

/** Past this many spent entries at the front, the array is cut (as `Semaphore` does with its waiters). */
const COMPACT_AFTER = 1024

export class DeadlineQueue<T> {
  private _entries: Entry<T>[] = []
  private _head = 0
  private _pending = 0
  private _timer: ReturnType<typeof setTimeout> | undefined

  /**
   * @param ms the length of every deadline
   * @param fire called with the item of a deadline that passed while pending
   */
  constructor(
    readonly ms: number,
    private readonly fire: (item: T) => void,
  ) {}

  /** Deadlines set and neither cancelled nor fired. */
  get pending(): number {
    return this._pending
  }

  /** Sets a deadline `ms` from now for `item`. */
  add(item: T): Deadline {
    const entry = new Entry(this, performance.now() + this.ms, item)
    this._dropSpent()
    this._entries.push(entry)
    this._pending++
    if (this._timer === undefined) this._arm()
    return entry
  }

  /** @internal an entry was cancelled */
  cancelled(): void {
    this._pending--
    if (this._pending === 0) this._idle()
  }

  /** Nothing left to time: no timer keeps the process up, nothing is held. */
  private _idle(): void {
    clearTimeout(this._timer)
    this._timer = undefined
    this._entries = []
    this._head = 0
  }

  /** Drops the cancelled and fired entries at the front. */
  private _dropSpent(): void {
    const entries = this._entries
    while (this._head < entries.length && !entries[this._head]!.pending) this._head++
    if (this._head === entries.length) {
      entries.length = 0
      this._head = 0
    } else if (this._head > COMPACT_AFTER) {
      entries.splice(0, this._head)
      this._head = 0
    }
  }

  /** Arms the timer for the earliest pending deadline, if any. */
  private _arm(): void {
    this._dropSpent()
    const first = this._entries[this._head]
    if (first === undefined) return
    this._timer = setTimeout(this._expire, Math.max(0, Math.ceil(first.at - performance.now())))
  }

  private readonly _expire = (): void => {
    this._timer = undefined
    const entries = this._entries
    const now = performance.now()
    const due: Entry<T>[] = []
    while (this._head < entries.length) {
      const entry = entries[this._head]!
      if (entry.pending && entry.at > now) break
      if (entry.pending) due.push(entry)
      this._head++
    }
    // The queue is in order before anything fires: `fire` may set deadlines,
    // or cancel one that is due with it, which then does not fire (as a
    // cleared setTimeout would not).
    this._arm()
    for (const entry of due) {
      if (!entry.pending) continue
      const item = entry.item as T
      entry.pending = false
      entry.item = undefined
      this._pending--
      this.fire(item)
    }
    if (this._pending === 0) this._idle()
  }
}
