/**
 * Stage 1, admit: whether a request is shadowed (`decideShadow`, which
 * takes a callbacks slot), then its body read for both upstreams within
 * the body bound and the bytes-in-flight budget. A request that is not
 * admitted goes to live alone, its body streamed (what was read of it
 * replayed first), and is counted as skipped by the caller.
 */
import type { SkipReason } from '../../metrics/index.ts'
import { decideShadow } from '../policy/admission-policy.ts'
import type { Reservation } from '../policy/byte-budget.ts'
import { contentLength, readRequestBody } from '../upstream/bounded-body.ts'
import type { PipelineContext } from './pipeline-context.ts'

export type Admission =
  /** Shadowed: the caller holds a callbacks slot and the reservation. */
  | { readonly kind: 'admitted'; readonly body: Uint8Array | null; readonly reservation: Reservation }
  /** Not shadowed: live gets `body`; no slot or byte is held. */
  | { readonly kind: 'skipped'; readonly reason: SkipReason; readonly body: ReadableStream<Uint8Array> | null }
  /** The client went away mid-upload: nothing to forward or compare; no slot or byte is held. */
  | { readonly kind: 'unreadable'; readonly error: unknown }

/**
 * Decided at once, without a promise, when there is no body to read (every
 * skipped request, every admitted GET): an async call and its await per
 * request cost more than the decision.
 * @param body the request's body stream, null for GET and HEAD
 */
export function admit(
  context: PipelineContext,
  request: Request,
  method: string,
  target: string,
  body: ReadableStream<Uint8Array> | null,
): Admission | Promise<Admission> {
  const reason = decideShadow(context.admission, method, target, body === null ? undefined : contentLength(request.headers))
  if (reason !== undefined) return { kind: 'skipped', reason, body }
  // The comparison's bytes in the budget, from the request body on; given back when it ends.
  const reservation = context.budget.open()
  if (body === null) return { kind: 'admitted', body: null, reservation }
  return readBody(context, request, body, reservation)
}

/** The body of an admitted request, read for both upstreams within the body bound and the budget. */
async function readBody(
  context: PipelineContext,
  request: Request,
  body: ReadableStream<Uint8Array>,
  reservation: Reservation,
): Promise<Admission> {
  try {
    const announced = contentLength(request.headers)
    if (announced !== undefined) {
      if (!reservation.add(announced)) {
        context.callbacks.release()
        return { kind: 'skipped', reason: 'memory_budget', body }
      }
      return { kind: 'admitted', body: await request.bytes(), reservation }
    }
    const read = await readRequestBody(body, context.settings.maxBodyBytes, reservation.add)
    if (read.kind !== 'complete') {
      reservation.release()
      context.callbacks.release()
      return { kind: 'skipped', reason: read.kind === 'too-large' ? 'body_too_large' : 'memory_budget', body: read.stream }
    }
    return { kind: 'admitted', body: read.bytes, reservation }
  } catch (error) {
    reservation.release()
    context.callbacks.release()
    return { kind: 'unreadable', error }
  }
}
