/**
 * Our HTTP/1.1 client over `Bun.connect`, for an `http:` shadow
 * (docs/proxy.md "The shadow's client") and for an `http:` live on the raw
 * server (`relay`, docs/proxy.md "The raw server"). The shadow's response
 * is read whole for the comparison and never streamed to anyone, so it
 * needs no Response object, no stream and no hand-over to fetch's HTTP
 * client thread: with fetch, the second exchange of a shadowed request
 * cost about as much CPU again as everything else the proxy does. On
 * Bun.serve live stays on fetch, whose Response Bun.serve sends natively.
 *
 * It sends what fetch would send for the same call (fetch's default
 * User-Agent, Accept, Connection and Host when absent, Basic credentials
 * of the URL, Content-Length for every method but GET, HEAD and TRACE
 * without a body, the target as fetch normalises it), so that the shadow
 * sees the same request as live (`shadow-clients.test.ts` and the tests of
 * this client compare both on the wire). Connections are kept alive in
 * the host's idle list (its limits are the pool's: `upstream-pool.ts`), a
 * connection slot of the host is held for each exchange, and a reused
 * connection that the server had closed is retried once on a new one for
 * a request that can be replayed (RFC 9110 section 9.2.2), as Go's
 * transport and fetch do.
 */
import type { RequestFields } from '../../net/field-list.ts'
import type { AbortLike } from '../../async/abort-flag.ts'
import type { UpstreamRecorder } from '../../metrics/index.ts'
import { headerMapOfFields } from './header-map.ts'
import type { Semaphore } from '../policy/semaphore.ts'
import { takeConnectionSlot } from './connection-slot.ts'
import { connect, StaleConnectionError, type Connection } from './http1-connection.ts'
import { ResponseReader, type ResponseRelay } from './http1-response.ts'
import type { IdleConnections } from './idle-connections.ts'
import type { WholeResponse } from './upstream-client.ts'
import { headDeadlines, type HeadDeadline } from './head-deadline.ts'
import { responseTooLarge, toUpstreamError } from './upstream-error.ts'

/** One exchange's request: what `UpstreamRequest` says, with the body read. */
export interface Http1Request {
  readonly method: string
  readonly pathAndQuery: string
  readonly headers: RequestFields
  readonly body: Uint8Array | null
  readonly signal: AbortLike
}

export interface Http1ClientOptions {
  /** `live`, `shadow` or `api`, for error texts. */
  readonly target: string
  /** `http://host:port` with an optional path prefix, no trailing slash. */
  readonly baseUrl: string
  /** The host's connection slots (SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST), shared with fetch's requests to it. */
  readonly slots: Semaphore
  readonly idle: IdleConnections
  readonly recorder?: UpstreamRecorder
  /** Fields set on every request, in place of the request's own of that name (the shadow's `X-Svc-Mode`). */
  readonly setFields?: Readonly<Record<string, string>>
  /**
   * Bounds the wait for the response head, from the call (a connection
   * slot and the connect included); 0: only the request's signal does.
   */
  readonly headTimeoutMs?: number
}

export interface Http1Client {
  /**
   * Sends the request and reads the response whole, within `maxBodyBytes`
   * (0: unlimited; past it, a `too_large` UpstreamError), asking `reserve`
   * before each piece of the body is kept. Rejects with an UpstreamError.
   */
  send(request: Http1Request, maxBodyBytes: number, reserve?: (bytes: number) => boolean): Promise<WholeResponse>
  /**
   * Sends the request and hands the response to `relay` as it is read
   * (live's relay, `relay-live.ts`): resolves with its status and headers
   * once it is complete (the body empty: the relay had it), or rejects
   * with an UpstreamError, before or after the head was relayed.
   */
  relay(request: Http1Request, relay: ResponseRelay): Promise<WholeResponse>
}

/** Methods whose request may be sent again (RFC 9110 section 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE'])
/** What needs no URL normalisation in a request target: no dot segment, nothing to percent-encode. */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/
/** Methods for which fetch sends no Content-Length when there is no body. */
const NO_LENGTH_WITHOUT_BODY = new Set(['GET', 'HEAD', 'TRACE'])
const USER_AGENT = `Bun/${Bun.version}`
const RELAYED_HEADERS = Object.freeze({})

export function createHttp1Client(options: Http1ClientOptions): Http1Client {
  const { target, slots, idle, recorder } = options
  const headTimeoutMs = options.headTimeoutMs ?? 0
  const startHeadDeadline = headTimeoutMs > 0 ? headDeadlines(headTimeoutMs) : undefined
  const url = new URL(options.baseUrl)
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  const port = Number(url.port || 80)
  const base = options.baseUrl
  const prefix = url.pathname.replace(/\/+$/, '')
  // Lines written on every request: the fields set by the caller, and
  // credentials of the URL as fetch sends them (unless the request has its own).
  const setNames = new Set<string>()
  let setLines = ''
  for (const [name, value] of Object.entries(options.setFields ?? {})) {
    setNames.add(name.toLowerCase())
    setLines += `${name.toLowerCase()}: ${value}\r\n`
  }
  const credentials =
    url.username === '' && url.password === ''
      ? undefined
      : `authorization: Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}\r\n`

  // The head's fixed lines, made once: a string built per request is an allocation per piece.
  const agentLine = `user-agent: ${USER_AGENT}\r\n`
  const hostLine = `host: ${url.host}\r\n`

  function requestBytes(request: Http1Request): Buffer {
    const { method, headers, body } = request
    // Pieces joined once at the end: each `+=` on a string is a rope object of its own.
    const parts: string[] = [method, ' ', requestTarget(base, prefix, request.pathAndQuery), ' HTTP/1.1\r\n']
    let host = false
    let agent = false
    let accept = false
    let authorization = false
    // forEach, not the pair iterator: the same fields in the same order
    // (of Headers: names sorted, each Set-Cookie apart), for a fraction of the cost.
    headers.forEach((value, name) => {
      if (name === 'content-length' || name === 'transfer-encoding' || name === 'connection') return
      if (setNames.has(name)) return
      if (name === 'host') host = true
      else if (name === 'user-agent') agent = true
      else if (name === 'accept') accept = true
      else if (name === 'authorization') authorization = true
      parts.push(name, ': ', value, '\r\n')
    })
    parts.push(setLines, 'connection: keep-alive\r\n')
    if (!agent) parts.push(agentLine)
    if (!accept) parts.push('accept: */*\r\n')
    if (!host) parts.push(hostLine)
    if (!authorization && credentials !== undefined) parts.push(credentials)
    if (body !== null || !NO_LENGTH_WITHOUT_BODY.has(method)) parts.push('content-length: ', String(body?.byteLength ?? 0), '\r\n')
    parts.push('\r\n')
    // Header values are byte strings (the Fetch standard): latin1 keeps each byte as it is.
    const headBytes = Buffer.from(parts.join(''), 'latin1')
    return body === null || body.byteLength === 0 ? headBytes : Buffer.concat([headBytes, body])
  }

  /**
   * An idle connection when there is one, else a new one (always new for
   * the retry after a stale one): a promise only when one must be made.
   */
  function connectionFor(signal: AbortLike, fresh: boolean): Connection | Promise<Connection> {
    // Aborted already: no idle connection is taken only to be closed.
    if (signal.aborted) throw signal.reason
    return (fresh ? undefined : idle.take()) ?? connect(hostname, port, signal)
  }

  async function send(
    request: Http1Request,
    maxBodyBytes: number,
    reserve?: (bytes: number) => boolean,
    relay?: ResponseRelay,
  ): Promise<WholeResponse> {
    const { method } = request
    let reader = new ResponseReader(method, maxBodyBytes, reserve, relay)
    let signal = request.signal
    let deadline: HeadDeadline | undefined
    if (startHeadDeadline !== undefined) {
      // Only when configured (always for live's relay): a second flag per request.
      deadline = startHeadDeadline(signal)
      signal = deadline.signal
    }
    try {
      const waiting = takeConnectionSlot(slots, signal, target)
      if (waiting !== undefined) await waiting
    } catch (error) {
      deadline?.end()
      throw error
    }
    const started = performance.now()
    try {
      const bytes = requestBytes(request)
      // No async step between the call and the exchange on an idle connection, the usual case.
      const taken = connectionFor(signal, false)
      let connection = taken instanceof Promise ? await taken : taken
      try {
        await connection.exchange(bytes, reader, signal, deadline)
      } catch (error) {
        if (!(error instanceof StaleConnectionError) || !replayable(method, request.headers) || signal.aborted) throw error
        reader = new ResponseReader(method, maxBodyBytes, reserve, relay)
        connection = await connectionFor(signal, true)
        await connection.exchange(bytes, reader, signal, deadline)
      }
      // A response that came before the whole request was written (a 413
      // at once, say) leaves the connection out of step: not reused.
      if (reader.reusable && connection.requestWritten) idle.put(connection, reader.keepAliveMs)
      else connection.close()
      const head = reader.head!
      const latencyMs = connection.headAt - started
      recorder?.observe(method, head.status, latencyMs / 1000)
      if (reader.overBudget) return { kind: 'over-budget' }
      if (!reader.tooLarge) {
        // A relay took the head as it came.
        const headers = relay === undefined ? headerMapOfFields(head.fields, head.setCookies) : RELAYED_HEADERS
        return { kind: 'complete', status: head.status, headers, body: reader.body, latencyMs }
      }
    } catch (error) {
      recorder?.observe(method, 0, (performance.now() - started) / 1000)
      throw toUpstreamError(error, target, signal)
    } finally {
      deadline?.end()
      slots.release()
    }
    // Its head came: observed above with its status, not as a failure.
    throw responseTooLarge(target, `body over ${maxBodyBytes} bytes`)
  }

  return {
    send,
    relay: (request, relay) => send(request, 0, undefined, relay),
  }
}

function replayable(method: string, headers: RequestFields): boolean {
  return IDEMPOTENT.has(method) || headers.has('idempotency-key') || headers.has('x-idempotency-key')
}

/**
 * The request target fetch sends for `base + pathAndQuery`: the URL
 * parser's (dot segments resolved, `%2e` ones too; spaces, quotes and
 * non-ASCII percent-encoded), and then, as Bun's fetch does, a path that
 * starts with several slashes starts with one.
 */
export function requestTarget(base: string, prefix: string, pathAndQuery: string): string {
  let target = prefix + pathAndQuery
  if (!PLAIN_TARGET.test(target) || target.includes('/.') || /%2e/i.test(target)) {
    const url = new URL(base + pathAndQuery)
    target = url.pathname + url.search
  }
  return target.startsWith('//') ? target.replace(/^\/+/, '/') : target
}
