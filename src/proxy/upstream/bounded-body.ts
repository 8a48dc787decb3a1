/**
 * Bodies kept for comparison are bounded by SVC_APP_MAX_BODY_SIZE
 * (docs/proxy.md "Forwarding": a request body is buffered only up to
 * SVC_APP_MAX_BODY_SIZE, a larger one is streamed to live only, unshadowed; the
 * same bound holds for the copy of live's response kept for the comparison). 0
 * means unlimited. Nothing here buffers past the bound.
 */
import type { RequestFields } from '../../net/field-list.ts'
import { exceeds } from '../policy/body-bound.ts'

/** A body read whole within the bound, or the fact that it was larger, or that `reserve` refused its bytes. */
export type BoundedRead =
  | { readonly kind: 'complete'; readonly bytes: Uint8Array }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'over-budget' }

/**
 * Asked before bytes are kept (the bytes-in-flight budget, `byte-budget.ts`):
 * `false` means they may not be, and the body is given up.
 */
export type Reserve = (bytes: number) => boolean

/** The Content-Length of a message, or undefined when absent or malformed. */
export function contentLength(headers: RequestFields): number | undefined {
  const text = headers.get('content-length')
  if (text === null || !/^\d+$/.test(text)) return undefined
  return Number(text)
}

/** Concatenates chunks; one chunk is returned as is. */
export function concatChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

/**
 * A request body read for both upstreams, or, when it turns out larger than
 * the bound, a stream that replays what was read and then the rest, for
 * live alone. Used when the length is not announced (chunked uploads).
 */
export type RequestBodyRead =
  | { readonly kind: 'complete'; readonly bytes: Uint8Array }
  | { readonly kind: 'too-large' | 'over-budget'; readonly stream: ReadableStream<Uint8Array> }

/** @param reserve asked before each chunk is kept; `false` gives the copy up (`over-budget`), live still gets it all */
export async function readRequestBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  reserve?: Reserve,
): Promise<RequestBodyRead> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { kind: 'complete', bytes: concatChunks(chunks, total) }
    chunks.push(value)
    total += value.byteLength
    if (exceeds(total, maxBytes)) return { kind: 'too-large', stream: replay(chunks, reader) }
    if (reserve !== undefined && !reserve(value.byteLength)) return { kind: 'over-budget', stream: replay(chunks, reader) }
  }
}

function replay(chunks: Uint8Array[], reader: ReadableStreamDefaultReader<Uint8Array>): ReadableStream<Uint8Array> {
  let index = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index < chunks.length) {
        controller.enqueue(chunks[index]!)
        chunks[index++] = EMPTY
        return
      }
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel(reason) {
      return reader.cancel(reason)
    },
  })
}

const EMPTY = new Uint8Array(0)

/**
 * Reads a response body (the shadow's) within the bound, asking `reserve`
 * for its bytes (an announced length at once, else chunk by chunk); past
 * the bound or once refused, the rest is cancelled rather than read.
 * Rejects as the underlying read does (reset, abort).
 */
export async function readResponseBody(response: Response, maxBytes: number, reserve?: Reserve): Promise<BoundedRead> {
  const announced = contentLength(response.headers)
  if (announced !== undefined) {
    const refused: BoundedRead | undefined = exceeds(announced, maxBytes)
      ? { kind: 'too-large' }
      : reserve !== undefined && !reserve(announced)
        ? { kind: 'over-budget' }
        : undefined
    if (refused !== undefined) {
      await response.body?.cancel().catch(() => {})
      return refused
    }
    // Before `.body`, which would make a stream that bytes() does not need.
    return { kind: 'complete', bytes: await response.bytes() }
  }
  if (response.body === null) return { kind: 'complete', bytes: EMPTY }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { kind: 'complete', bytes: concatChunks(chunks, total) }
    total += value.byteLength
    const refused: BoundedRead | undefined = exceeds(total, maxBytes)
      ? { kind: 'too-large' }
      : reserve !== undefined && !reserve(value.byteLength)
        ? { kind: 'over-budget' }
        : undefined
    if (refused !== undefined) {
      await reader.cancel().catch(() => {})
      return refused
    }
    chunks.push(value)
  }
}

/**
 * Lets the comparison that wanted a copy of live's body give it up: once it
 * is abandoned (the shadow timeout, the drain), the body streams on to the
 * client and nothing more of it is kept. Otherwise a large download would
 * stay in memory to its end for a comparison that no longer waits for it.
 */
export interface CopyControl {
  /** Set when the copy is given up; a pass-through started later keeps none. */
  dropped: boolean
  /** Set by the pass-through keeping the copy: drops what it holds. */
  drop?: () => void
  /** Asked before each chunk is kept; `false` gives the copy up (it ends as `too-large`). */
  reserve?: Reserve
}

/** How a pass-through ended, for the copy kept for the comparison, or a slot to free. */
export type StreamEnd =
  | { readonly kind: 'complete'; readonly bytes: Uint8Array }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'cancelled' }

/**
 * Forwards `body` to the client untouched, chunk by chunk with the
 * client's backpressure, while keeping a copy of up to `maxBytes` bytes
 * (0: all; -1: none). Past the bound the copy stops (and is dropped), the
 * forwarding goes on. `onEnd` is called exactly once: when the body is
 * done, fails (upstream reset), or the client goes away. A tee() would not
 * do: a branch that stops reading makes tee() queue the rest in memory.
 * `copy.drop()` gives the copy up (it ends as `too-large`).
 */
export function passThrough(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  onEnd: (end: StreamEnd) => void,
  copy?: CopyControl,
): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  const keep = maxBytes >= 0
  let chunks: Uint8Array[] | undefined = keep && copy?.dropped !== true ? [] : undefined
  if (copy !== undefined) {
    copy.drop = () => {
      chunks = undefined
    }
  }
  let total = 0
  let ended = false
  const finish = (end: StreamEnd) => {
    if (ended) return
    ended = true
    chunks = undefined
    onEnd(end)
  }
  return new DirectStream({
    type: 'direct',
    async pull(controller) {
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          total += value.byteLength
          if (chunks !== undefined) {
            if (exceeds(total, maxBytes) || copy?.reserve?.(value.byteLength) === false) chunks = undefined
            else chunks.push(value)
          }
          const written = controller.write(value)
          if (typeof written !== 'number') await written
          if (ended) return
        }
      } catch (error) {
        controller.close(error instanceof Error ? error : new Error(String(error)))
        finish({ kind: 'failed', error })
        return
      }
      const end: StreamEnd = !keep
        ? { kind: 'complete', bytes: EMPTY }
        : chunks === undefined
          ? { kind: 'too-large' }
          : { kind: 'complete', bytes: concatChunks(chunks, total) }
      // The client's stream ends first: what `onEnd` does (a comparison
      // that runs at once, when the shadow's side came in before) is not
      // the client's to wait for.
      controller.close()
      finish(end)
    },
    cancel(reason) {
      finish({ kind: 'cancelled' })
      return reader.cancel(reason).catch(() => {})
    },
  })
}

/** Bun's `type: 'direct'` streams, whose typing the DOM overloads hide. */
const DirectStream = ReadableStream as unknown as new (source: Bun.DirectUnderlyingSource<Uint8Array>) => ReadableStream<Uint8Array>
