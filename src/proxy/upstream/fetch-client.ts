/**
 * An upstream over Bun's fetch, on the host's `Bun.FetchSession` and
 * connection slots (`upstream-pool.ts`): live, the API and an `https:`
 * shadow. Live's response is handed on as fetch gives it, which Bun.serve
 * sends natively; the shadow's is read whole within its bound.
 */
import { abortSignalOf } from '../../async/abort-flag.ts'
import type { UpstreamRecorder } from '../../metrics/index.ts'
import { shadowRequestHeaders } from '../policy/forward-headers.ts'
import type { Semaphore } from '../policy/semaphore.ts'
import { readResponseBody } from './bounded-body.ts'
import { takeConnectionSlot } from './connection-slot.ts'
import { headerMapOf } from './header-map.ts'
import { MAX_HEAD_BYTES, statusProblem } from './response-head.ts'
import { shadowClientOf, type ShadowClient, type UpstreamClient, type UpstreamExchange } from './upstream-client.ts'
import { headDeadlines } from './head-deadline.ts'
import { badResponse, responseTooLarge, toUpstreamError, type UpstreamError } from './upstream-error.ts'

export interface FetchClientOptions {
  readonly target: UpstreamClient['target']
  /** The upstream's base URL; a trailing slash is dropped. */
  readonly baseUrl: string
  /** The host's keep-alive pool. */
  readonly session: Bun.FetchSession
  /** The host's connection slots (SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST). */
  readonly slots: Semaphore
  readonly recorder?: UpstreamRecorder
}

export function createFetchClient(options: FetchClientOptions): UpstreamClient {
  const { target, session, slots, recorder } = options
  const base = options.baseUrl.replace(/\/+$/, '')
  return {
    target,
    baseUrl: base,
    async send(request) {
      const waiting = takeConnectionSlot(slots, request.signal, target)
      if (waiting !== undefined) await waiting
      const started = performance.now()
      let response: Response
      try {
        const init: BunFetchRequestInit & { duplex?: 'half' } = {
          method: request.method,
          headers: request.headers,
          body: request.body,
          signal: request.signal,
          // A proxy forwards redirects to its client; it never follows them.
          redirect: 'manual',
          // Keep the exact bytes, compressed or not (docs/proxy.md "Forwarding").
          decompress: false,
          session,
        } as BunFetchRequestInit
        // Set only for a stream: no object spread per request.
        if (request.body instanceof ReadableStream) init.duplex = 'half'
        response = await fetch(base + request.pathAndQuery, init)
      } catch (error) {
        slots.release()
        recorder?.observe(request.method, 0, (performance.now() - started) / 1000)
        throw toUpstreamError(error, target, request.signal)
      }
      const latencyMs = performance.now() - started
      recorder?.observe(request.method, response.status, latencyMs / 1000)
      return new FetchExchange(response, latencyMs, slots)
    },
  }
}

/** A class, not an object literal: no `done` closure per request. */
class FetchExchange implements UpstreamExchange {
  private released = false

  constructor(
    readonly response: Response,
    readonly latencyMs: number,
    private readonly slots: Semaphore,
  ) {}

  done(): void {
    if (this.released) return
    this.released = true
    this.slots.release()
  }
}

/**
 * The shadow over fetch (an `https:` shadow, or any with
 * SVC_APP_SHADOW_CLIENT=fetch): the body read within the bound, then the
 * slot freed. Exported for the tests, which check that it and our
 * HTTP/1.1 client read the same responses alike.
 * @param headTimeoutMs bounds the wait for the response head from the call (a slot included); 0: only the request's signal does
 */
export function shadowOverFetch(client: UpstreamClient, headTimeoutMs = 0): ShadowClient {
  const { target } = client
  const startHeadDeadline = headTimeoutMs > 0 ? headDeadlines(headTimeoutMs) : undefined
  return shadowClientOf(async (request, maxBodyBytes, reserve) => {
    // Only when configured: a second flag per request.
    const deadline = startHeadDeadline?.(request.signal)
    // fetch takes a real AbortSignal, made here from the comparison's (the body's read included).
    const follower = abortSignalOf(deadline?.signal ?? request.signal)
    const signal = follower.signal
    let exchange: UpstreamExchange
    try {
      exchange = await client.send({ ...request, signal, headers: shadowRequestHeaders(request.headers) })
    } catch (error) {
      follower.release()
      deadline?.end()
      throw error
    }
    deadline?.headCame()
    try {
      const { response, latencyMs } = exchange
      const refused = refusedHead(target, response)
      if (refused !== undefined) {
        await response.body?.cancel().catch(() => {})
        throw refused
      }
      const read = await readResponseBody(response, maxBodyBytes, reserve)
      if (read.kind === 'too-large') throw responseTooLarge(target, `body over ${maxBodyBytes} bytes`)
      if (read.kind === 'over-budget') return read
      return { kind: 'complete', status: response.status, headers: headerMapOf(response.headers), body: read.bytes, latencyMs }
    } catch (error) {
      throw toUpstreamError(error, target, signal)
    } finally {
      exchange.done()
      follower.release()
      deadline?.end()
    }
  })
}

/**
 * What our HTTP/1.1 reader refuses in a head and fetch takes: a status
 * outside 100..599 (fetch gives 0 for `000`), Content-Length with
 * Transfer-Encoding (fetch keeps both fields and frames by the coding),
 * and a head over MAX_HEAD_BYTES (fetch reads several MB; its size is
 * estimated from the fields fetch gives, after fetch has read it).
 */
function refusedHead(target: string, response: Response): UpstreamError | undefined {
  const status = statusProblem(response.status)
  if (status !== undefined) return badResponse(target, status)
  const { headers } = response
  if (headers.has('transfer-encoding') && headers.has('content-length')) {
    return badResponse(target, 'Content-Length with Transfer-Encoding')
  }
  // `HTTP/1.1 200 <reason>` + CRLF, each field as `name: value` + CRLF, the empty line.
  let bytes = 15 + response.statusText.length
  for (const [name, value] of headers) bytes += name.length + value.length + 4
  if (bytes > MAX_HEAD_BYTES) return responseTooLarge(target, `head over ${MAX_HEAD_BYTES} bytes`)
  return undefined
}
