/**
 * A connection slot of an upstream host (SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST),
 * taken the same way by fetch's requests and by the shadow's client.
 */
import type { AbortLike } from '../../async/abort-flag.ts'
import type { Semaphore } from '../policy/semaphore.ts'
import { toUpstreamError } from './upstream-error.ts'

/**
 * Takes a slot: at once when one is free (undefined: no promise to wait
 * on, on the hot path), else a wait in line (`waitForConnectionSlot`).
 */
export function takeConnectionSlot(slots: Semaphore, signal: AbortLike, target: string): Promise<void> | undefined {
  return slots.tryAcquire() ? undefined : waitForConnectionSlot(slots, signal, target)
}

/** A wait in line for a slot within `signal`, which rejects with an UpstreamError for `target` when given up. */
export function waitForConnectionSlot(slots: Semaphore, signal: AbortLike, target: string): Promise<void> {
  return slots.acquire(signal).catch((error: unknown) => {
    throw toUpstreamError(error, target, signal)
  })
}
