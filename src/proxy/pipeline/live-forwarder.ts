/**
 * The live side: send within SVC_APP_LIVE_TIMEOUT, and hand live's response
 * to the client untouched and streamed (docs/proxy.md "Forwarding"), or a
 * 504/502 Problem when live gives none.
 *
 * The timeout bounds the wait for live's response headers (the wait for a
 * connection slot included). The body then streams for as long as it
 * takes, like a download should; Bun's idle timeout still closes a
 * connection on which nothing moves.
 */
import { exceeds } from '../policy/body-bound.ts'
import { contentLength, passThrough, type StreamEnd } from '../upstream/bounded-body.ts'
import { liveStatusProblem } from '../upstream/response-head.ts'
import { clientResponseHeaders } from '../policy/forward-headers.ts'
import { problemResponse } from '../../errors/problem.ts'
import { liveFailureProblem } from './problem-response.ts'
import type { UpstreamClient, UpstreamExchange } from '../upstream/upstream-client.ts'
import { badResponse, TimeoutReason, toUpstreamError, type UpstreamError } from '../upstream/upstream-error.ts'
import { DeadlineQueue } from '../../async/deadline-queue.ts'
import type { LiveBodyWatcher } from './pending-comparison.ts'

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
   * The client's response. With a `watcher`, a copy of the body (up to the
   * bound) is kept and handed over when the body is through, unless the
   * watcher's copy is given up first.
   */
  respond(result: LiveResult, watcher?: LiveBodyWatcher): Response
}

/**
 * Bodies announced at most this long are (nearly) all in with their
 * headers: their connection slot is released at once when they are not
 * compared, and they are copied with `clone()` when they are.
 */
const SMALL_BODY_BYTES = 64 * 1024
const EMPTY = new Uint8Array(0)

export function createLiveForwarder(options: LiveForwarderOptions): LiveForwarder {
  const { client, timeoutMs, maxBodyBytes, slotsBounded } = options
  // One timer for every request's head timeout (`deadline-queue.ts`).
  const deadlines = new DeadlineQueue<AbortController>(timeoutMs, (controller) => abortOnTimeout(controller, timeoutMs))

  return {
    async send(method, pathAndQuery, headers, body) {
      const controller = new AbortController()
      const deadline = deadlines.add(controller)
      const started = performance.now()
      try {
        const exchange = await client.send({ method, pathAndQuery, headers, body, signal: controller.signal })
        const problem = liveStatusProblem(exchange.response.status)
        if (problem === undefined) return { ok: true, exchange }
        // A new Response around such a status threw after the body was
        // taken, which left live's connection slot held for good and
        // answered 500; and a status 0 made live's body read as an error
        // text, logged unredacted. A bad response instead, 502.
        void exchange.response.body?.cancel().catch(() => {})
        exchange.done()
        return { ok: false, error: badResponse('live', problem), latencyMs: Math.round(performance.now() - started) }
      } catch (error) {
        return {
          ok: false,
          error: toUpstreamError(error, 'live', controller.signal),
          latencyMs: Math.round(performance.now() - started),
        }
      } finally {
        deadline.cancel()
      }
    },

    respond,
  }

  function respond(result: LiveResult, watcher?: LiveBodyWatcher): Response {
    if (!result.ok) return problemResponse(liveFailureProblem(result.error))
    const { exchange } = result
    const { response } = exchange
    const announced = contentLength(response.headers)
    if (watcher === undefined) {
      // Nothing to watch: the slot is not counted, or a small body is (nearly) all in already.
      if (!slotsBounded || (announced !== undefined && announced <= SMALL_BODY_BYTES)) {
        exchange.done()
        return passOn(response)
      }
      const body = response.body
      if (body === null) {
        exchange.done()
        return passOn(response)
      }
      return passOn(response, passThrough(body, -1, () => exchange.done()))
    }
    if (announced !== undefined && announced <= SMALL_BODY_BYTES && !exceeds(announced, maxBodyBytes)) {
      void copyWhole(response.clone(), exchange, watcher)
      return passOn(response)
    }
    const finish = (end: StreamEnd) => {
      exchange.done()
      watcher.liveBodyEnded(end)
    }
    const body = response.body
    if (body === null) {
      finish({ kind: 'complete', bytes: EMPTY })
      return passOn(response)
    }
    if (announced !== undefined && exceeds(announced, maxBodyBytes)) {
      // Known to be too large for the comparison: forwarded without keeping a copy.
      const tooLarge = (end: StreamEnd) => finish(end.kind === 'complete' ? { kind: 'too-large' } : end)
      return passOn(response, passThrough(body, -1, tooLarge))
    }
    return passOn(response, passThrough(body, maxBodyBytes, finish, watcher.liveCopy))
  }
}

/**
 * The client's response: live's own when nothing in it changes, which Bun
 * sends for far less than a new Response around its body; otherwise one
 * with the hop-by-hop headers dropped, around `body` (a pass-through) or
 * live's body as it is.
 */
function passOn(response: Response, body?: ReadableStream<Uint8Array> | null): Response {
  const headers = clientResponseHeaders(response.headers)
  if (body === undefined && headers === response.headers) return response
  return new Response((body === undefined ? response.body : body) as BodyInit | null, {
    status: response.status,
    statusText: response.statusText,
    headers,
  })
}

/**
 * A small body of announced length, compared: `clone()` makes the copy,
 * read here whole.
 * A body that came in with its headers (the usual case for a small one) is
 * then shared by both responses, nothing is copied or streamed through
 * JavaScript, and live's own response goes to the client: about 5 % of
 * the proxy's CPU per shadowed request (docs/proxy.md "Benchmark"), against
 * a stream reader per response. A body still arriving is teed by the
 * clone: the client's side streams as live sends it, and the copy is read
 * at live's pace, so that a slow client queues at most SMALL_BODY_BYTES.
 * The copy ends with live's body, not with the client: a client that leaves
 * early no longer cancels it, and the request is still compared.
 */
async function copyWhole(clone: Response, exchange: UpstreamExchange, watcher: LiveBodyWatcher): Promise<void> {
  let end: StreamEnd
  try {
    // At most the announced length: fetch enforces Content-Length framing.
    end = { kind: 'complete', bytes: await clone.bytes() }
  } catch (error) {
    end = { kind: 'failed', error }
  }
  exchange.done()
  watcher.liveBodyEnded(end)
}

/** The reason is made when the timer fires: an Error per request would cost a stack capture each. */
function abortOnTimeout(controller: AbortController, timeoutMs: number): void {
  controller.abort(new TimeoutReason(timeoutMs))
}
