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
import { FollowingFlag, type AbortLike } from '../../async/abort-flag.ts'
import { DeadlineQueue, type Deadline } from '../../async/deadline-queue.ts'
import type { UpstreamRecorder } from '../../metrics/index.ts'
import { headerMapOfFields } from './header-map.ts'
import type { Semaphore } from '../policy/semaphore.ts'
import { waitForConnectionSlot } from './connection-slot.ts'
import { connect, StaleConnectionError, type Connection, type ExchangeListener, type HeadWatcher } from './http1-connection.ts'
import { ResponseReader, type ResponseRelay } from './http1-response.ts'
import type { IdleConnections } from './idle-connections.ts'
import type { ExchangeOutcome, Http1Client, WholeRequest, WholeResponse } from './upstream-client.ts'
import { HeadTimeoutReason, responseTooLarge, toUpstreamError, type UpstreamError } from './upstream-error.ts'

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
  // One timer for all the client's head deadlines (`src/async/deadline-queue.ts`), the exchange its item.
  const headDeadlines = headTimeoutMs > 0 ? new DeadlineQueue<Exchange>(headTimeoutMs, (exchange) => exchange.headLate(new HeadTimeoutReason(headTimeoutMs))) : undefined
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

  const lines = new FieldLines(setNames)

  function requestBytes(request: WholeRequest): Buffer {
    const { method, headers, body } = request
    // Pieces joined once at the end: each `+=` on a string is a rope object of its own.
    const parts: string[] = [method, ' ', requestTarget(base, prefix, request.pathAndQuery), ' HTTP/1.1\r\n']
    lines.start(parts)
    // forEach, not the pair iterator: the same fields in the same order
    // (of Headers: names sorted, each Set-Cookie apart), for a fraction of the cost.
    headers.forEach(lines.field)
    lines.end()
    parts.push(setLines, 'connection: keep-alive\r\n')
    if (!lines.agent) parts.push(agentLine)
    if (!lines.accept) parts.push('accept: */*\r\n')
    if (!lines.host) parts.push(hostLine)
    if (!lines.authorization && credentials !== undefined) parts.push(credentials)
    if (body !== null || !NO_LENGTH_WITHOUT_BODY.has(method)) parts.push('content-length: ', String(body?.byteLength ?? 0), '\r\n')
    parts.push('\r\n')
    // Header values are byte strings (the Fetch standard): latin1 keeps each byte as it is.
    const headBytes = Buffer.from(parts.join(''), 'latin1')
    return body === null || body.byteLength === 0 ? headBytes : Buffer.concat([headBytes, body])
  }

  const host: Http1Host = { target, slots, idle, recorder, headDeadlines, requestBytes, connect: (signal) => connect(hostname, port, signal) }
  return {
    send: (request, maxBodyBytes, reserve) =>
      new Promise<WholeResponse>((resolve, reject) => {
        new Exchange(host, request, maxBodyBytes, reserve, undefined, { completed: resolve, failed: reject }).start()
      }),
    exchange: (request, maxBodyBytes, reserve, outcome) => new Exchange(host, request, maxBodyBytes, reserve, undefined, outcome).start(),
    relay: (request, relay, outcome) => new Exchange(host, request, 0, undefined, relay, outcome).start(),
  }
}

/** What FieldLines holds between heads: nothing of the last one. */
const NO_PARTS: string[] = []

/**
 * The field lines of a request head as the client writes them, and which
 * of the fields it fills in when absent were there. One per client,
 * reused by each request (a head is written within one call, never two at
 * once): `field` is made once, not a closure per request.
 */
class FieldLines {
  private parts: string[] = NO_PARTS
  host = false
  agent = false
  accept = false
  authorization = false

  constructor(private readonly setNames: ReadonlySet<string>) {}

  /** The lines of the next head go to `parts`. */
  start(parts: string[]): void {
    this.parts = parts
    this.host = false
    this.agent = false
    this.accept = false
    this.authorization = false
  }

  /** One field (the argument order of `forEach`). */
  readonly field = (value: string, name: string): void => {
    if (name === 'content-length' || name === 'transfer-encoding' || name === 'connection') return
    if (this.setNames.has(name)) return
    if (name === 'host') this.host = true
    else if (name === 'user-agent') this.agent = true
    else if (name === 'accept') this.accept = true
    else if (name === 'authorization') this.authorization = true
    this.parts.push(name, ': ', value, '\r\n')
  }

  /** The head's fields are through: its parts are not kept. */
  end(): void {
    this.parts = NO_PARTS
  }
}

/** What an exchange needs of its client: made once per client. */
interface Http1Host {
  readonly target: string
  readonly slots: Semaphore
  readonly idle: IdleConnections
  readonly recorder: UpstreamRecorder | undefined
  readonly headDeadlines: DeadlineQueue<Exchange> | undefined
  requestBytes(request: WholeRequest): Buffer
  /** A new connection to the host, or the connect's error or the signal's reason, whichever comes first. */
  connect(signal: AbortLike): Promise<Connection>
}

/**
 * One exchange, its steps as callbacks (a connection slot, a connection,
 * the request and its response): on the usual path, an idle connection and
 * a free slot, no promise is made between the call and the outcome.
 * Every path gives the slot back and ends the head deadline once.
 *
 * The head deadline is the exchange's own entry in the client's queue:
 * when it passes, the exchange on a connection is ended through the
 * connection (`abortExchange`). A wait for a slot or a connect, which
 * listen to one signal, get a flag that the request's signal and the
 * deadline both abort (`waitSignal`): made only when there is such a
 * wait, not for every exchange of live.
 */
class Exchange implements ExchangeListener, HeadWatcher {
  private reader: ResponseReader
  private readonly deadline: Deadline | undefined
  /** The request's signal and the head deadline as one, once a slot or a connect was waited for. */
  private waitFlag: FollowingFlag | undefined
  private started = 0
  private bytes: Buffer | undefined
  private connection: Connection | undefined
  private retried = false
  /** The outcome was told: whatever throws after, it is not told again, nor the slot given back twice. */
  private over = false

  constructor(
    private readonly host: Http1Host,
    private readonly request: WholeRequest,
    private readonly maxBodyBytes: number,
    private readonly reserve: ((bytes: number) => boolean) | undefined,
    private readonly relay: ResponseRelay | undefined,
    private readonly outcome: ExchangeOutcome,
  ) {
    this.reader = new ResponseReader(request.method, maxBodyBytes, reserve, relay)
    // Only when configured (always for live's relay).
    this.deadline = host.headDeadlines?.add(this)
  }

  start(): void {
    const { slots, target } = this.host
    if (slots.tryAcquire()) {
      this.slotTaken()
      return
    }
    waitForConnectionSlot(slots, this.waitSignal(), target).then(
      () => this.slotTaken(),
      (error: unknown) => {
        // No slot was taken: none to give back.
        this.endDeadline()
        this.outcome.failed(error as UpstreamError)
      },
    )
  }

  /** Fired by the client's queue: the head is late (`headCame` would have cancelled the deadline). */
  headLate(reason: HeadTimeoutReason): void {
    // On a connection without a wait before it: through the connection.
    if (this.waitFlag === undefined && this.connection?.abortExchange(this, reason)) return
    // A slot wait, a connect, or an exchange on a connection that follows the flag.
    this.followingFlag().abort(reason)
  }

  headCame(): void {
    this.deadline?.cancel()
  }

  /** What the exchange's steps listen to: the request's signal, or the flag that also ends at the head deadline. */
  private signal(): AbortLike {
    return this.waitFlag ?? this.request.signal
  }

  /** The signal a wait listens to: the request's own when there is no head deadline. */
  private waitSignal(): AbortLike {
    return this.deadline === undefined ? this.request.signal : this.followingFlag()
  }

  private followingFlag(): FollowingFlag {
    return (this.waitFlag ??= new FollowingFlag(this.request.signal))
  }

  private slotTaken(): void {
    this.started = performance.now()
    let idle: Connection | undefined
    try {
      this.bytes = this.host.requestBytes(this.request)
      const signal = this.signal()
      // Aborted already: no idle connection is taken only to be closed.
      if (signal.aborted) throw signal.reason
      idle = this.host.idle.take()
    } catch (error) {
      this.failed(error)
      return
    }
    // No async step between the call and the exchange on an idle connection, the usual case.
    if (idle !== undefined) this.exchangeOn(idle)
    else this.connectNew()
  }

  private connectNew(): void {
    this.host.connect(this.waitSignal()).then(
      (connection) => this.exchangeOn(connection),
      (error: unknown) => this.failed(error),
    )
  }

  private exchangeOn(connection: Connection): void {
    this.connection = connection
    try {
      connection.exchange(this.bytes!, this.reader, this.signal(), this, this)
    } catch (error) {
      // A bug or a socket that throws: the exchange still ends, once, and
      // the connection is not reused. Ended through the connection when it
      // holds this exchange already: closing it would read as a stale
      // connection and start a retry outside the slot `failed` gives back.
      if (connection.abortExchange(this, error)) return
      connection.close()
      this.failed(error)
    }
  }

  exchangeFailed(error: unknown): void {
    const { request } = this
    if (this.retried || !(error instanceof StaleConnectionError) || !replayable(request.method, request.headers) || this.signal().aborted) {
      this.failed(error)
      return
    }
    // The server had closed the idle connection: once more on a new one.
    this.retried = true
    this.reader = new ResponseReader(request.method, this.maxBodyBytes, this.reserve, this.relay)
    this.connectNew()
  }

  exchangeDone(): void {
    const { host, reader, request } = this
    const connection = this.connection!
    let response: WholeResponse | undefined
    try {
      // A response that came before the whole request was written (a 413
      // at once, say) leaves the connection out of step: not reused.
      if (reader.reusable && connection.requestWritten) host.idle.put(connection, reader.keepAliveMs)
      else connection.close()
      const head = reader.head!
      const latencyMs = connection.headAt - this.started
      host.recorder?.observe(request.method, head.status, latencyMs / 1000)
      if (reader.overBudget) response = { kind: 'over-budget' }
      else if (!reader.tooLarge) {
        // A relay took the head as it came.
        const headers = this.relay === undefined ? headerMapOfFields(head.fields, head.setCookies) : RELAYED_HEADERS
        response = { kind: 'complete', status: head.status, headers, body: reader.body, latencyMs }
      }
    } catch (error) {
      this.failed(error)
      return
    }
    if (this.over) return
    this.over = true
    this.release()
    if (response !== undefined) this.outcome.completed(response)
    // Its head came: observed above with its status, not as a failure.
    else this.outcome.failed(responseTooLarge(host.target, `body over ${this.maxBodyBytes} bytes`))
  }

  /** After the slot was taken: the failure observed, the slot given back, the caller told. */
  private failed(error: unknown): void {
    if (this.over) return
    this.over = true
    const { host } = this
    host.recorder?.observe(this.request.method, 0, (performance.now() - this.started) / 1000)
    const upstreamError = toUpstreamError(error, host.target, this.signal())
    this.release()
    this.outcome.failed(upstreamError)
  }

  private release(): void {
    this.endDeadline()
    this.host.slots.release()
  }

  private endDeadline(): void {
    this.deadline?.cancel()
    this.waitFlag?.unfollow()
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
