/**
 * The shadow's HTTP/1.1 client over `Bun.connect`, for `http:` shadows
 * (docs/proxy.md "The shadow's client"). The shadow's response is read
 * whole for the comparison and never streamed to anyone, so it needs no
 * Response object, no stream and no hand-over to fetch's HTTP client
 * thread: with fetch, the second exchange of a shadowed request cost about
 * as much CPU again as everything else the proxy does. Live stays on
 * fetch, whose Response Bun.serve sends natively.
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
import type { UpstreamRecorder } from '../metrics/index.ts'
import { headerMapOfFields } from './capture.ts'
import { takeConnectionSlot } from './connection-slot.ts'
import { ResponseReader } from './http1-response.ts'
import type { Semaphore } from './semaphore.ts'
import { responseTooLarge, toUpstreamError } from './upstream-error.ts'
import type { WholeResponse } from './upstream-pool.ts'

/** One exchange's request: what `UpstreamRequest` says, with the body read. */
export interface Http1Request {
  readonly method: string
  readonly pathAndQuery: string
  readonly headers: Headers
  readonly body: Uint8Array | null
  readonly signal: AbortSignal
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
}

export interface Http1Client {
  /**
   * Sends the request and reads the response whole, within `maxBodyBytes`
   * (0: unlimited; past it, a `too_large` UpstreamError), asking `reserve`
   * before each piece of the body is kept. Rejects with an UpstreamError.
   */
  send(request: Http1Request, maxBodyBytes: number, reserve?: (bytes: number) => boolean): Promise<WholeResponse>
}

/** Methods whose request may be sent again (RFC 9110 section 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE'])
/** What needs no URL normalisation in a request target: no dot segment, nothing to percent-encode. */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/
/** Methods for which fetch sends no Content-Length when there is no body. */
const NO_LENGTH_WITHOUT_BODY = new Set(['GET', 'HEAD', 'TRACE'])
const USER_AGENT = `Bun/${Bun.version}`

export function createHttp1Client(options: Http1ClientOptions): Http1Client {
  const { target, slots, idle, recorder } = options
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

  function requestBytes(request: Http1Request): Buffer {
    const { method, headers, body } = request
    let head = `${method} ${requestTarget(base, prefix, request.pathAndQuery)} HTTP/1.1\r\n`
    let host = false
    let agent = false
    let accept = false
    let authorization = false
    for (const [name, value] of headers) {
      if (name === 'content-length' || name === 'transfer-encoding' || name === 'connection') continue
      if (setNames.has(name)) continue
      if (name === 'host') host = true
      else if (name === 'user-agent') agent = true
      else if (name === 'accept') accept = true
      else if (name === 'authorization') authorization = true
      head += `${name}: ${value}\r\n`
    }
    head += setLines
    head += 'connection: keep-alive\r\n'
    if (!agent) head += `user-agent: ${USER_AGENT}\r\n`
    if (!accept) head += 'accept: */*\r\n'
    if (!host) head += `host: ${url.host}\r\n`
    if (!authorization && credentials !== undefined) head += credentials
    if (body !== null || !NO_LENGTH_WITHOUT_BODY.has(method)) head += `content-length: ${body?.byteLength ?? 0}\r\n`
    head += '\r\n'
    // Header values are byte strings (the Fetch standard): latin1 keeps each byte as it is.
    const headBytes = Buffer.from(head, 'latin1')
    return body === null || body.byteLength === 0 ? headBytes : Buffer.concat([headBytes, body])
  }

  /** @param fresh on a new connection, not an idle one (the retry after a stale one) */
  async function exchangeOnce(request: Http1Request, bytes: Buffer, reader: ResponseReader, fresh: boolean) {
    // Aborted already: no idle connection is taken only to be closed.
    if (request.signal.aborted) throw request.signal.reason
    const connection = (fresh ? undefined : idle.take()) ?? (await connect(hostname, port, request.signal))
    await connection.exchange(bytes, reader, request.signal)
    return connection
  }

  return {
    async send(request, maxBodyBytes, reserve) {
      const { method, signal } = request
      const waiting = takeConnectionSlot(slots, signal, target)
      if (waiting !== undefined) await waiting
      const started = performance.now()
      const bytes = requestBytes(request)
      let reader = new ResponseReader(method, maxBodyBytes, reserve)
      try {
        let connection: Connection
        try {
          connection = await exchangeOnce(request, bytes, reader, false)
        } catch (error) {
          if (!(error instanceof StaleConnectionError) || !replayable(method, request.headers) || signal.aborted) throw error
          reader = new ResponseReader(method, maxBodyBytes, reserve)
          connection = await exchangeOnce(request, bytes, reader, true)
        }
        // A response that came before the whole request was written (a 413
        // at once, say) leaves the connection out of step: not reused.
        if (reader.reusable && connection.requestWritten) idle.put(connection)
        else connection.close()
        const head = reader.head!
        const latencyMs = connection.headAt - started
        recorder?.observe(method, head.status, latencyMs / 1000)
        if (reader.overBudget) return { kind: 'over-budget' }
        if (!reader.tooLarge) {
          const headers = headerMapOfFields(head.fields, head.setCookies)
          return { kind: 'complete', status: head.status, headers, body: reader.body, latencyMs }
        }
      } catch (error) {
        recorder?.observe(method, 0, (performance.now() - started) / 1000)
        throw toUpstreamError(error, target, signal)
      } finally {
        slots.release()
      }
      // Its head came: observed above with its status, not as a failure.
      throw responseTooLarge(target, `body over ${maxBodyBytes} bytes`)
    },
  }
}

/** A reused keep-alive connection closed before any byte of the response: the server had let it go. */
class StaleConnectionError extends Error {
  readonly code = 'ECONNRESET'
  constructor() {
    super('connection reset (a kept-alive connection the server had closed)')
  }
}

function replayable(method: string, headers: Headers): boolean {
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

/** One socket, one exchange at a time. */
class Connection {
  socket: Bun.Socket<Connection> | undefined
  closed = false
  reused = false
  idleSince = 0
  /** When the current exchange's response head came in (performance.now()). */
  headAt = 0
  /** Whether the current exchange's request went out whole. */
  requestWritten = false
  /** Set while the connection is in an idle list, to take it out when it closes there. */
  onIdleClose: ((connection: Connection) => void) | undefined
  private reader: ResponseReader | undefined
  private unsent: Buffer | undefined
  private resolve: (() => void) | undefined
  private reject: ((error: unknown) => void) | undefined
  private signal: AbortSignal | undefined
  private readonly onAbort = () => {
    this.fail(this.signal!.reason)
    this.close()
  }

  exchange(bytes: Buffer, reader: ResponseReader, signal: AbortSignal): Promise<void> {
    if (signal.aborted) {
      this.close()
      return Promise.reject(signal.reason)
    }
    if (this.closed) return Promise.reject(this.reused ? new StaleConnectionError() : closedError())
    this.reader = reader
    this.headAt = 0
    this.requestWritten = false
    this.signal = signal
    signal.addEventListener('abort', this.onAbort, { once: true })
    const done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
    })
    this.write(bytes)
    return done
  }

  onData(chunk: Buffer): void {
    const reader = this.reader
    if (reader === undefined) {
      // Bytes on an idle connection: nothing was asked; it cannot be trusted.
      this.close()
      return
    }
    try {
      const state = reader.push(chunk)
      if (this.headAt === 0 && reader.head !== undefined) this.headAt = performance.now()
      if (state !== 'more') this.succeed()
    } catch (error) {
      this.fail(error)
      this.close()
    }
  }

  onDrain(): void {
    const rest = this.unsent
    if (rest === undefined) return
    this.unsent = undefined
    this.write(rest)
  }

  onClose(error?: unknown): void {
    if (this.closed) return
    this.closed = true
    this.onIdleClose?.(this)
    const reader = this.reader
    if (reader === undefined) return
    if (!reader.received && this.reused) {
      this.fail(new StaleConnectionError())
      return
    }
    try {
      reader.end()
      if (this.headAt === 0 && reader.head !== undefined) this.headAt = performance.now()
      this.succeed()
    } catch (endError) {
      this.fail(error ?? endError)
    }
  }

  close(): void {
    if (!this.closed) this.socket?.terminate()
    this.onClose()
  }

  private write(bytes: Buffer): void {
    const written = this.socket!.write(bytes)
    if (written < bytes.byteLength) this.unsent = bytes.subarray(Math.max(0, written))
    else this.requestWritten = true
  }

  private succeed(): void {
    const resolve = this.resolve
    this.settle()
    resolve?.()
  }

  private fail(error: unknown): void {
    const reject = this.reject
    this.settle()
    reject?.(error)
  }

  private settle(): void {
    this.signal?.removeEventListener('abort', this.onAbort)
    this.signal = undefined
    this.reader = undefined
    this.unsent = undefined
    this.resolve = undefined
    this.reject = undefined
  }
}

function closedError(): Error {
  return Object.assign(new Error('connection closed'), { code: 'ECONNRESET' })
}

const handlers: Bun.SocketHandler<Connection> = {
  data: (socket, chunk) => socket.data.onData(chunk),
  drain: (socket) => socket.data.onDrain(),
  end: (socket) => {
    // The server is done with the connection: so are we.
    socket.data.onClose()
    socket.terminate()
  },
  close: (socket, error) => socket.data.onClose(error),
  error: (socket, error) => socket.data.onClose(error),
}

/** Connects, or rejects with the connect error or the signal's reason, whichever comes first. */
function connect(hostname: string, port: number, signal: AbortSignal): Promise<Connection> {
  if (signal.aborted) return Promise.reject(signal.reason)
  const connection = new Connection()
  return new Promise<Connection>((resolve, reject) => {
    let aborted = false
    const onAbort = () => {
      aborted = true
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    Bun.connect<Connection>({ hostname, port, data: connection, socket: handlers }).then(
      (socket) => {
        signal.removeEventListener('abort', onAbort)
        connection.socket = socket
        socket.setNoDelay(true)
        if (aborted) connection.close()
        else resolve(connection)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * A host's idle keep-alive connections, most recently used first: at most
 * `maxIdle` of them, and at most `budget.max` across hosts (0: no such
 * bound); one idle longer than `idleTimeoutMs` (0: no bound) is closed.
 */
export class IdleConnections {
  private readonly list: Connection[] = []
  private sweeper: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly maxIdle: number,
    private readonly budget: { count: number; readonly max: number },
    private readonly idleTimeoutMs: number,
  ) {}

  take(): Connection | undefined {
    const now = this.idleTimeoutMs === 0 ? 0 : performance.now()
    for (;;) {
      const connection = this.list.pop()
      if (connection === undefined) return undefined
      this.leave(connection)
      if (connection.closed) continue
      if (this.idleTimeoutMs !== 0 && now - connection.idleSince > this.idleTimeoutMs) {
        connection.close()
        continue
      }
      connection.reused = true
      return connection
    }
  }

  put(connection: Connection): void {
    if (connection.closed) return
    if (this.list.length >= this.maxIdle || (this.budget.max !== 0 && this.budget.count >= this.budget.max)) {
      connection.close()
      return
    }
    connection.idleSince = this.idleTimeoutMs === 0 ? 0 : performance.now()
    connection.onIdleClose = this.remove
    this.list.push(connection)
    this.budget.count++
    if (this.idleTimeoutMs !== 0 && this.sweeper === undefined) {
      this.sweeper = setInterval(this.sweep, Math.min(1000, this.idleTimeoutMs))
      this.sweeper.unref()
    }
  }

  closeAll(): void {
    for (const connection of this.list.splice(0)) this.leave(connection).close()
    this.stopSweeper()
  }

  private readonly remove = (connection: Connection) => {
    const index = this.list.indexOf(connection)
    if (index === -1) return
    this.list.splice(index, 1)
    this.leave(connection)
  }

  private readonly sweep = () => {
    const now = performance.now()
    // Oldest first: the list is in the order connections went idle.
    while (this.list.length > 0 && now - this.list[0]!.idleSince > this.idleTimeoutMs) {
      this.leave(this.list.shift()!).close()
    }
    if (this.list.length === 0) this.stopSweeper()
  }

  /** Book-keeping of a connection taken out of the list (the caller has taken it out). */
  private leave(connection: Connection): Connection {
    this.budget.count--
    connection.onIdleClose = undefined
    return connection
  }

  private stopSweeper(): void {
    if (this.sweeper !== undefined) clearInterval(this.sweeper)
    this.sweeper = undefined
  }
}
