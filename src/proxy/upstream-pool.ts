/**
 * The outbound HTTP clients, per upstream origin: Bun's fetch with one
 * `Bun.FetchSession` (its own keep-alive pool) for live, the API and an
 * `https:` shadow; our HTTP/1.1 client (`http1-client.ts`) with its own
 * idle list for an `http:` shadow, whose response is read whole; and one
 * semaphore of connection slots that both share. How the four
 * SVC_APP_HTTP_CLIENT_* settings map (docs/proxy.md has the table):
 *
 * - MAX_CONNS_PER_HOST: enforced exactly by a semaphore per origin, held
 *   from the request until its response body is done; 0 is unbounded.
 * - MAX_IDLE_CONNS_PER_HOST: the session's `keepAlive.maxIdleSockets` and
 *   the length of our client's idle list (0: the Go runtime's default of
 *   2, as SPEC.md says).
 * - MAX_IDLE_CONNS: caps each session's idle sockets as well; Bun keeps all
 *   idle sockets of all sessions in one shared pool of 64 (DESIGN.md
 *   "Verified pitfalls"), so no setting can exceed that. Our client's idle
 *   connections across origins are bounded by it exactly, apart from
 *   fetch's.
 * - IDLE_CONN_TIMEOUT: `keepAlive.idleTimeout`, in whole seconds rounded
 *   up; Bun's socket timer moves in 4 s steps; 0 is Bun's longest (238 min).
 *   Our client closes a connection idle longer than it within a second
 *   (0: never).
 */
import type { HeaderMap } from '../diff/index.ts'
import type { HttpClientMetrics, SvcTarget, UpstreamRecorder } from '../metrics/index.ts'
import { readResponseBody } from './bounded-body.ts'
import { headerMapOf } from './capture.ts'
import { takeConnectionSlot } from './connection-slot.ts'
import { SHADOW_MODE_HEADER, SHADOW_MODE_VALUE, shadowRequestHeaders } from './forward-headers.ts'
import { createHttp1Client, IdleConnections } from './http1-client.ts'
import { Semaphore } from './semaphore.ts'
import type { HttpClientSettings } from './shadow-settings.ts'
import { MAX_HEAD_BYTES, statusProblem } from './response-head.ts'
import { badResponse, responseTooLarge, toUpstreamError, type UpstreamError } from './upstream-error.ts'

/** The longest keep-alive idle timeout Bun accepts, in seconds (FetchSessionInit). */
const BUN_MAX_IDLE_SECONDS = 14_280
/** Go's http.DefaultMaxIdleConnsPerHost, which SPEC.md calls "the runtime default of 2". */
const DEFAULT_IDLE_PER_HOST = 2

export interface UpstreamRequest {
  readonly method: string
  /** Path and query, appended to the upstream's base URL. */
  readonly pathAndQuery: string
  readonly headers: Headers
  readonly body: Uint8Array | ReadableStream<Uint8Array> | null
  /** Aborts the wait for a connection slot, the request and its body. */
  readonly signal: AbortSignal
}

/** One upstream (live, shadow or the API) at a base URL. */
export interface UpstreamClient {
  readonly target: SvcTarget
  readonly baseUrl: string
  /**
   * Sends a request once a connection slot for the host is free. Resolves
   * with the response as soon as its headers are in; the slot is held until
   * `done()` of the returned exchange is called (after the body is read or
   * forwarded). Rejects with an UpstreamError (slot released).
   */
  send(request: UpstreamRequest): Promise<UpstreamExchange>
}

export interface UpstreamExchange {
  readonly response: Response
  /** Milliseconds from sending to the response headers. */
  readonly latencyMs: number
  /** Frees the connection slot; idempotent. */
  done(): void
}

/** A response read whole within a bound, or the fact that the budget for its body ran out. */
export type WholeResponse =
  | {
      readonly kind: 'complete'
      readonly status: number
      readonly headers: HeaderMap
      readonly body: Uint8Array
      /** Milliseconds from sending to the response headers. */
      readonly latencyMs: number
    }
  | { readonly kind: 'over-budget' }

/**
 * The shadow's client: it adds `X-Svc-Mode: shadow` to the request's
 * headers (live's), and reads the response whole, never streamed on.
 */
export interface ShadowClient {
  /**
   * Rejects with an UpstreamError: a failed body read, a body over
   * `maxBodyBytes` (`too_large`), a response the proxy does not take
   * (`bad_response`: a status outside 100..599, Content-Length with
   * Transfer-Encoding, malformed bytes) or a head over MAX_HEAD_BYTES.
   * @param maxBodyBytes 0: unlimited
   * @param reserve asked before each piece of the body is kept; `false` drops it (`over-budget`)
   */
  send(
    request: UpstreamRequest & { readonly body: Uint8Array | null },
    maxBodyBytes: number,
    reserve?: (bytes: number) => boolean,
  ): Promise<WholeResponse>
}

export interface UpstreamPool {
  /** The client of one upstream, made once; clients of one origin share a slot count and a pool. */
  client(target: SvcTarget, baseUrl: string): UpstreamClient
  /**
   * The shadow's client: our HTTP/1.1 client for an `http:` shadow
   * (`http1-client.ts`), fetch for `https:`. It shares the host's
   * connection slots with `client()`.
   */
  shadowClient(baseUrl: string): ShadowClient
  /** Closes the idle connections of every session. */
  close(): void
}

export interface UpstreamPoolOptions {
  readonly settings: HttpClientSettings
  /** Records `http_client_request_duration_seconds` per upstream. */
  readonly metrics?: HttpClientMetrics
}

interface Host {
  readonly session: Bun.FetchSession
  readonly slots: Semaphore
  /** Idle connections of our HTTP/1.1 client to this host. */
  readonly idle: IdleConnections
}

export function createUpstreamPool(options: UpstreamPoolOptions): UpstreamPool {
  const { settings, metrics } = options
  const hosts = new Map<string, Host>()
  const keepAlive = {
    idleTimeout: idleTimeoutSeconds(settings.idleConnTimeoutMs),
    maxIdleSockets: maxIdlePerHost(settings),
  }
  // Our client's idle connections across hosts, bounded by MAX_IDLE_CONNS (0: not bounded).
  const idleBudget = { count: 0, max: settings.maxIdleConns }

  function host(origin: string): Host {
    let found = hosts.get(origin)
    if (!found) {
      found = {
        session: new Bun.FetchSession({ keepAlive }),
        slots: new Semaphore(settings.maxConnsPerHost),
        idle: new IdleConnections(keepAlive.maxIdleSockets, idleBudget, settings.idleConnTimeoutMs),
      }
      hosts.set(origin, found)
    }
    return found
  }

  const pool: UpstreamPool = {
    shadowClient(baseUrl) {
      const url = new URL(baseUrl)
      if (url.protocol !== 'http:') return shadowOverFetch(pool.client('shadow', baseUrl))
      const { slots, idle } = host(url.origin)
      return createHttp1Client({
        target: 'shadow',
        baseUrl: baseUrl.replace(/\/+$/, ''),
        slots,
        idle,
        recorder: metrics?.forUpstream('shadow', url),
        setFields: { [SHADOW_MODE_HEADER]: SHADOW_MODE_VALUE },
      })
    },

    client(target, baseUrl) {
      const url = new URL(baseUrl)
      const base = baseUrl.replace(/\/+$/, '')
      const { session, slots } = host(url.origin)
      const recorder: UpstreamRecorder | undefined = metrics?.forUpstream(target, url)
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
              // DESIGN.md "Verified pitfalls": keep the exact bytes, compressed or not.
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
          let released = false
          return {
            response,
            latencyMs,
            done() {
              if (released) return
              released = true
              slots.release()
            },
          }
        },
      }
    },
    close() {
      for (const { session, idle } of hosts.values()) {
        session.close()
        idle.closeAll()
      }
    },
  }
  return pool
}

/**
 * The shadow over fetch (an `https:` shadow): the body read within the
 * bound, then the slot freed. Exported for the tests, which check that it
 * and our HTTP/1.1 client read the same responses alike.
 */
export function shadowOverFetch(client: UpstreamClient): ShadowClient {
  const { target } = client
  return {
    async send(request, maxBodyBytes, reserve) {
      const exchange = await client.send({ ...request, headers: shadowRequestHeaders(request.headers) })
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
        throw toUpstreamError(error, target, request.signal)
      } finally {
        exchange.done()
      }
    },
  }
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

function idleTimeoutSeconds(ms: number): number {
  if (ms <= 0) return BUN_MAX_IDLE_SECONDS
  return Math.min(BUN_MAX_IDLE_SECONDS, Math.ceil(ms / 1000))
}

function maxIdlePerHost(settings: HttpClientSettings): number {
  const perHost = settings.maxIdleConnsPerHost === 0 ? DEFAULT_IDLE_PER_HOST : settings.maxIdleConnsPerHost
  return settings.maxIdleConns === 0 ? perHost : Math.min(perHost, settings.maxIdleConns)
}
