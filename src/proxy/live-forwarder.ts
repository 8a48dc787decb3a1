/**
 * The live side: send within SVC_APP_LIVE_TIMEOUT, and hand live's response
 * to the client untouched and streamed (DESIGN.md "Proxy behaviour"), or a
 * 504/502 Problem when live gives none.
 *
 * The timeout bounds the wait for live's response headers (the wait for a
 * connection slot included). The body then streams for as long as it
 * takes, like a download should; Bun's idle timeout still closes a
 * connection on which nothing moves.
 */
import { contentLength, exceeds, passThrough, passThroughReader, type StreamEnd } from './bounded-body.ts'
import { clientResponseHeaders } from './forward-headers.ts'
import { problemResponse } from '../errors/problem.ts'
import { liveFailureProblem } from './problem-response.ts'
import type { UpstreamClient, UpstreamExchange } from './upstream-pool.ts'
import { TimeoutReason, toUpstreamError, type UpstreamError } from './upstream-error.ts'

export type LiveResult =
  | { readonly ok: true; readonly exchange: UpstreamExchange }
  | { readonly ok: false; readonly error: UpstreamError; readonly latencyMs: number }

export interface LiveForwarderOptions {
  readonly client: UpstreamClient
  readonly timeoutMs: number
  /** Bound of the copy kept for comparison; 0 means unlimited. */
  readonly maxBodyBytes: number
  /**
   * Whether connections per host are bounded (a slot to free when the body
   * is through). When they are not, nothing needs to watch the body of a
   * response that is not compared, and it is passed on as it is.
   */
  readonly slotsBounded: boolean
}

export interface LiveForwarder {
  send(
    method: string,
    pathAndQuery: string,
    headers: Headers,
    body: Uint8Array | ReadableStream<Uint8Array> | null,
  ): Promise<LiveResult>
  /**
   * The client's response. With `onEnd`, a copy of the body (up to the
   * bound) is kept and handed over when the body is through.
   */
  respond(result: LiveResult): Response
  respond(result: LiveResult, onEnd: (end: StreamEnd) => void): Response | Promise<Response>
}

/** Bodies announced at most this long are released with their headers: they are (nearly) all in already. */
const SMALL_BODY_BYTES = 64 * 1024
const EMPTY = new Uint8Array(0)

export function createLiveForwarder(options: LiveForwarderOptions): LiveForwarder {
  const { client, timeoutMs, maxBodyBytes, slotsBounded } = options

  return {
    async send(method, pathAndQuery, headers, body) {
      const controller = new AbortController()
      const timer = setTimeout(abortOnTimeout, timeoutMs, controller, timeoutMs)
      const started = performance.now()
      try {
        const exchange = await client.send({ method, pathAndQuery, headers, body, signal: controller.signal })
        return { ok: true, exchange }
      } catch (error) {
        return {
          ok: false,
          error: toUpstreamError(error, 'live', controller.signal),
          latencyMs: Math.round(performance.now() - started),
        }
      } finally {
        clearTimeout(timer)
      }
    },

    respond,
  }

  function respond(result: LiveResult): Response
  function respond(result: LiveResult, onEnd: (end: StreamEnd) => void): Response | Promise<Response>
  function respond(result: LiveResult, onEnd?: (end: StreamEnd) => void): Response | Promise<Response> {
    if (!result.ok) return problemResponse(liveFailureProblem(result.error))
    const { response, done } = result.exchange
    let body: ReadableStream<Uint8Array> | null = response.body
    if (onEnd !== undefined) {
      if (body === null) {
        done()
        onEnd({ kind: 'complete', bytes: EMPTY })
      } else {
        const announced = contentLength(response.headers)
        const finish = (end: StreamEnd) => {
          done()
          onEnd(end)
        }
        if (announced !== undefined && exceeds(announced, maxBodyBytes)) {
          // Known to be too large for the comparison: forwarded without keeping a copy.
          body = passThrough(body, -1, (end) => finish(end.kind === 'complete' ? { kind: 'too-large' } : end))
        } else if (announced !== undefined && announced > 0) {
          return afterFirstChunk(response, body, announced, maxBodyBytes, finish)
        } else {
          body = passThrough(body, maxBodyBytes, finish)
        }
      }
    } else if (body === null || !slotsBounded || isSmall(response.headers)) {
      done()
    } else {
      body = passThrough(body, -1, done)
    }
    return new Response(body as BodyInit | null, {
      status: response.status,
      statusText: response.statusText,
      headers: clientResponseHeaders(response.headers),
    })
  }
}

/**
 * A body of announced length, when compared: its first chunk is read before
 * the response starts. When that chunk is the whole body (a small body
 * arrives with its headers) it goes out as bytes, which costs Bun far less
 * than a stream per response; otherwise the chunk and the rest stream on as
 * usual. Nothing that has arrived is held back, and an unannounced body
 * (an event stream) never waits for a first chunk.
 */
async function afterFirstChunk(
  response: Response,
  body: ReadableStream<Uint8Array>,
  announced: number,
  maxBodyBytes: number,
  finish: (end: StreamEnd) => void,
): Promise<Response> {
  const init = { status: response.status, statusText: response.statusText, headers: clientResponseHeaders(response.headers) }
  const reader = body.getReader()
  let first: Awaited<ReturnType<typeof reader.read>>
  try {
    first = await reader.read()
  } catch (error) {
    // Live broke off before its body: the client sees the same.
    finish({ kind: 'failed', error })
    return new Response(failedStream(error), init)
  }
  if (first.done) {
    finish({ kind: 'complete', bytes: EMPTY })
    return new Response(null, init)
  }
  const chunk = first.value
  if (chunk.byteLength >= announced) {
    finish(exceeds(chunk.byteLength, maxBodyBytes) ? { kind: 'too-large' } : { kind: 'complete', bytes: chunk })
    return new Response(chunk as Uint8Array<ArrayBuffer>, init)
  }
  return new Response(passThroughReader(reader, chunk, maxBodyBytes, finish) as ReadableStream<Uint8Array<ArrayBuffer>>, init)
}

function failedStream(error: unknown): ReadableStream<Uint8Array<ArrayBuffer>> {
  return new ReadableStream({
    start(controller) {
      controller.error(error)
    },
  })
}

/** The reason is made when the timer fires: an Error per request would cost a stack capture each. */
function abortOnTimeout(controller: AbortController, timeoutMs: number): void {
  controller.abort(new TimeoutReason(timeoutMs))
}

function isSmall(headers: Headers): boolean {
  const length = headers.get('content-length')
  return length !== null && Number(length) <= SMALL_BODY_BYTES
}
