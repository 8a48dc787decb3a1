/**
 * A cancellation that costs a plain object: what the shadow's own client
 * listens to for each comparison's exchange, in place of an
 * AbortController. A controller is a DOM object, and each listener added
 * to its signal a native one; per shadowed request they cost about 5 µs of
 * the proxy's CPU (docs/proxy.md "CPU per request"). `fetch` still
 * needs a real AbortSignal: `abortSignalOf` makes one when asked.
 */

/** The part of an AbortSignal that our clients and the semaphore read: AbortSignal has it, and so has AbortFlag. */
export interface AbortLike {
  readonly aborted: boolean
  readonly reason: unknown
  addEventListener(type: 'abort', listener: () => void): void
  removeEventListener(type: 'abort', listener: () => void): void
}

/**
 * Aborted once, with a reason; its listeners are called then, in the order
 * they were added, each once. As with an AbortSignal: a listener added twice
 * is called once, one added after the abort is never called, one removed
 * by another listener during the abort is not called, and one that throws
 * does not keep the others from being called (its error is reported, not
 * thrown).
 */
export class AbortFlag implements AbortLike {
  aborted = false
  reason: unknown = undefined
  /** The usual case is one listener at a time: no array for it. */
  private _first: (() => void) | undefined
  private _more: (() => void)[] | undefined

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted || this._first === listener || this._more?.includes(listener)) return
    if (this._first === undefined && this._more === undefined) this._first = listener
    else (this._more ??= []).push(listener)
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this._first === listener) {
      this._first = this._more?.shift()
      return
    }
    const more = this._more
    if (more === undefined) return
    const index = more.indexOf(listener)
    if (index !== -1) more.splice(index, 1)
  }

  /** @param reason as AbortController.abort's: a DOMException named AbortError when undefined */
  abort(reason?: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason === undefined ? new DOMException('The operation was aborted.', 'AbortError') : reason
    // A copy: a listener may remove another while this runs, which `has` then sees.
    const listeners = [...(this._more ?? [])]
    if (this._first !== undefined) listeners.unshift(this._first)
    for (const listener of listeners) {
      if (!this.has(listener)) continue
      try {
        listener()
      } catch (error) {
        reportError(error)
      }
    }
    this._first = undefined
    this._more = undefined
  }

  private has(listener: () => void): boolean {
    return this._first === listener || (this._more?.includes(listener) ?? false)
  }
}

/**
 * An AbortFlag also aborted when `source` is (at once if it has), with
 * its reason, until `unfollow`: one flag for a wait that more than one
 * thing may end (a request's own signal and a deadline).
 */
export class FollowingFlag extends AbortFlag {
  /** The source no longer aborts this flag. */
  readonly unfollow: () => void

  constructor(source: AbortLike) {
    super()
    this.unfollow = followAbort(source, (reason) => this.abort(reason))
  }
}

/**
 * Calls `abort` with `source`'s reason when `source` aborts (at once if it
 * has); the function returned stops the following.
 */
export function followAbort(source: AbortLike, abort: (reason: unknown) => void): () => void {
  if (source.aborted) {
    abort(source.reason)
    return () => {}
  }
  const follow = () => abort(source.reason)
  source.addEventListener('abort', follow)
  return () => source.removeEventListener('abort', follow)
}

/**
 * A real AbortSignal that follows `abort` (itself when it is one), for
 * `fetch`; `release` stops the following once the exchange is over.
 */
export function abortSignalOf(abort: AbortLike): { readonly signal: AbortSignal; release(): void } {
  if (abort instanceof AbortSignal) return { signal: abort, release() {} }
  const controller = new AbortController()
  return { signal: controller.signal, release: followAbort(abort, (reason) => controller.abort(reason)) }
}
