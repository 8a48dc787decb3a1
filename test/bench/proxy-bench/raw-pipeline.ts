/**
 * A reference for `cpu.ts`, not a proxy to run: the data path a proxy on
 * raw sockets would have, with our pipeline on it, to price that design
 * before it is built (docs/benchmarks/proxy.md). In front, `Bun.listen`;
 * per client connection, one pinned connection to live (and more to the
 * shadow when one is still busy); no Request, Response, Headers or
 * stream object per request.
 *
 * Per request it does what such a proxy must: the request head parsed
 * (request line, fields), the upstream heads written from it (hop-by-hop
 * fields and the client's Host and X-Svc-Mode dropped, X-Forwarded-For,
 * -Host and -Proto set, `X-Svc-Mode: shadow` on the shadow's), live's
 * response read by our response parser (`http1-response.ts`: framing,
 * limits) while its bytes go on to the client as they come, a live timeout
 * on the deadline queue; and the pipeline itself, the real one: the
 * admission (`decideShadow`: rules, sampling, the callbacks slot), the
 * budget, the capture id, `PendingComparison` with its shadow deadline,
 * the background task, the shadow's side through `forwardShadow`, the
 * diff log sink, the metrics.
 *
 * `RAW_PIPELINE_SHADOW=pool` sends the shadow's side through our pooled
 * HTTP/1.1 client (`http1-client.ts`) instead of the client connection's
 * own: what the pool costs over pinned connections.
 *
 * Left out, so that its figure is a floor of the design, not of a product:
 * request bodies and chunked requests, pipelining, the client's
 * backpressure, hop-by-hop fields in live's head (the benchmark's live
 * sends none), errors of every kind, the noise check, `https:` upstreams.
 */
import { DEFAULT_DIFF_CONFIG } from '../../../src/diff/index.ts'
import { createLogger, rateLimited } from '../../../src/log/index.ts'
import { Registry } from '../../../src/metrics/index.ts'
import { compileShadowRules, DEFAULT_HTTP_CLIENT } from '../../../src/proxy/index.ts'
import { decideShadow, type AdmissionPolicy } from '../../../src/proxy/policy/admission-policy.ts'
import { ByteBudget, DEFAULT_MAX_BYTES_IN_FLIGHT } from '../../../src/proxy/policy/byte-budget.ts'
import { RefusalWindow } from '../../../src/proxy/policy/refusal-window.ts'
import { createSampler } from '../../../src/proxy/policy/sampler.ts'
import { Semaphore } from '../../../src/proxy/policy/semaphore.ts'
import type { ShadowSettings } from '../../../src/proxy/policy/shadow-settings.ts'
import { BackgroundTasks } from '../../../src/proxy/pipeline/background-tasks.ts'
import { shadowDeadlines } from '../../../src/proxy/pipeline/collect.ts'
import { DeadlineQueue } from '../../../src/async/deadline-queue.ts'
import { PendingComparison } from '../../../src/proxy/pipeline/pending-comparison.ts'
import { skip, type PipelineContext } from '../../../src/proxy/pipeline/pipeline-context.ts'
import { SkipWarnings } from '../../../src/proxy/pipeline/skip-warnings.ts'
import { createProxyMetrics } from '../../../src/proxy/pipeline/proxy-metrics.ts'
import { createDiffLogSink } from '../../../src/proxy/sinks/diff-log-sink.ts'
import { headerMapOfFields } from '../../../src/proxy/upstream/header-map.ts'
import { ResponseReader } from '../../../src/proxy/upstream/http1-response.ts'
import { shadowClientOf, type ShadowClient, type WholeRequest, type WholeResponse } from '../../../src/proxy/upstream/upstream-client.ts'
import type { AbortLike } from '../../../src/async/abort-flag.ts'
import { SHARED_PORT } from './http1-floors.ts'
import { isHopByHop } from '../../../src/proxy/policy/forward-headers.ts'
import { relayLive, type ClientWatcher } from '../../../src/proxy/pipeline/relay-live.ts'
import { clientHead } from '../../../src/proxy/server/response-writer.ts'
import type { Framing, ResponseHead } from '../../../src/proxy/upstream/response-head.ts'
import { createUpstreamPool } from '../../../src/proxy/upstream/upstream-pool.ts'
import { FieldList } from '../../../src/net/field-list.ts'

const HEAD_END = Buffer.from('\r\n\r\n')
const LIVE_TIMEOUT_MS = 5000

/**
 * What the shadow's side needs of a request, carried in the admitted
 * request's `headers` (a reference's shortcut: the real design would give
 * the pipeline a head of its own instead of a Headers object).
 */
interface ShadowCarrier {
  readonly client: ClientConnection
  readonly bytes: Buffer
}

/** One exchange on a pinned connection: the response parsed as it comes, each chunk handed on. */
interface Exchange {
  readonly reader: ResponseReader
  readonly started: number
  onChunk?(chunk: Buffer): void
  onHead?(): void
  onDone(): void
  onFail(error: unknown): void
}

/** A connection to one upstream, kept by one client connection. */
class Pinned {
  private socket: Bun.Socket<Pinned> | undefined
  private waiting: Buffer | undefined
  private exchange: Exchange | undefined
  private headSeen = false
  closed = false

  constructor(hostname: string, port: number) {
    void Bun.connect<Pinned>({ hostname, port, data: this, socket: PINNED_HANDLERS }).then(
      (socket) => {
        this.socket = socket
        socket.setNoDelay(true)
        const waiting = this.waiting
        this.waiting = undefined
        if (waiting !== undefined) socket.write(waiting)
      },
      (error: unknown) => this.onClose(error),
    )
  }

  get busy(): boolean {
    return this.exchange !== undefined
  }

  send(bytes: Buffer, exchange: Exchange): void {
    this.exchange = exchange
    this.headSeen = false
    if (this.socket === undefined) this.waiting = bytes
    else this.socket.write(bytes)
  }

  onData(chunk: Buffer): void {
    const exchange = this.exchange
    if (exchange === undefined) return
    exchange.onChunk?.(chunk)
    try {
      const state = exchange.reader.push(chunk)
      if (!this.headSeen && exchange.reader.head !== undefined) {
        this.headSeen = true
        exchange.onHead?.()
      }
      if (state === 'more') return
      this.exchange = undefined
      if (!exchange.reader.reusable) this.end()
      exchange.onDone()
    } catch (error) {
      this.exchange = undefined
      this.end()
      exchange.onFail(error)
    }
  }

  onClose(error?: unknown): void {
    this.closed = true
    const exchange = this.exchange
    this.exchange = undefined
    exchange?.onFail(error ?? new Error('connection closed'))
  }

  end(): void {
    this.closed = true
    this.socket?.end()
  }
}

const PINNED_HANDLERS: Bun.SocketHandler<Pinned> = {
  data: (socket, chunk) => socket.data.onData(chunk),
  end: (socket) => socket.data.onClose(),
  close: (socket, error) => socket.data.onClose(error),
  error: (socket, error) => socket.data.onClose(error),
}

/** One client connection: its unfinished head, its live connection, its shadow connections. */
class ClientConnection {
  held: Buffer | undefined
  live: Pinned | undefined
  shadows: Pinned[] = []
  constructor(readonly socket: Bun.Socket<ClientConnection>) {}
}

/** A request head as this reference reads it. */
interface RequestHead {
  readonly method: string
  readonly target: string
  /** The upstream head's field lines, the forwarded ones included, without the final CRLF. */
  readonly lines: string
  readonly requestId: string | undefined
}

function parseRequestHead(text: string, clientAddress: string, upstreamHost: string): RequestHead {
  const lines = text.split('\r\n')
  const requestLine = lines[0]!
  const firstSpace = requestLine.indexOf(' ')
  const secondSpace = requestLine.indexOf(' ', firstSpace + 1)
  const method = requestLine.slice(0, firstSpace)
  const target = requestLine.slice(firstSpace + 1, secondSpace)
  let out = `${method} ${target} HTTP/1.1\r\nhost: ${upstreamHost}\r\n`
  let host: string | undefined
  let priorFor: string | undefined
  let requestId: string | undefined
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).toLowerCase()
    if (isHopByHop(name) || name === 'x-svc-mode' || name === 'forwarded' || name === 'x-forwarded-host' || name === 'x-forwarded-proto') continue
    const value = line.slice(colon + 1).trim()
    if (name === 'host') host = value
    else if (name === 'x-forwarded-for') priorFor = value
    else {
      if (name === 'x-request-id') requestId = value
      out += `${name}: ${value}\r\n`
    }
  }
  out += `x-forwarded-for: ${priorFor === undefined ? clientAddress : `${priorFor}, ${clientAddress}`}\r\n`
  if (host !== undefined) out += `x-forwarded-host: ${host}\r\n`
  out += 'x-forwarded-proto: http\r\nconnection: keep-alive\r\n'
  return { method, target, lines: out, requestId }
}

/**
 * @param live `pinned`: the client connection's own live connection;
 *   `relay`: our pooled HTTP/1.1 client in the raw server's relay mode
 *   (`relay-live.ts`), all else the same: what the general client costs
 */
export function serveRawPipeline(port: number, liveUrl: string, shadowUrl: string, rate: number, live: 'pinned' | 'relay' = 'pinned'): void {
  const liveAt = new URL(liveUrl)
  const shadow = new URL(shadowUrl)
  const liveHostname = liveAt.hostname
  const livePort = Number(liveAt.port)
  const settings: ShadowSettings = {
    liveUrl,
    shadowUrl,
    gate: '',
    liveTimeoutMs: LIVE_TIMEOUT_MS,
    shadowTimeoutMs: 10_000,
    maxBodyBytes: 10 * 1024 * 1024,
    samplingRate: rate,
    shadowRules: compileShadowRules(''),
    maxConcurrentCallbacks: 200,
    httpClient: DEFAULT_HTTP_CLIENT,
    redactedFields: [],
    diff: DEFAULT_DIFF_CONFIG,
  }
  const logger = createLogger({ level: 'warn', format: 'json' })
  const warnings = rateLimited(logger, 10_000)
  const metrics = createProxyMetrics(new Registry())
  const callbacks = new Semaphore(settings.maxConcurrentCallbacks)
  const admission: AdmissionPolicy = {
    rules: settings.shadowRules,
    sample: createSampler(settings.samplingRate),
    maxBodyBytes: settings.maxBodyBytes,
    breaker: undefined,
    callbacks,
  }
  const budget = new ByteBudget(DEFAULT_MAX_BYTES_IN_FLIGHT)
  const shadowRefusals = new RefusalWindow(1000)
  const pooled = process.env.RAW_PIPELINE_SHADOW === 'pool' ? createUpstreamPool({ settings: { ...DEFAULT_HTTP_CLIENT, maxConnsPerHost: 256, maxIdleConnsPerHost: 256, maxIdleConns: 0 } }).shadowClient(shadowUrl) : undefined
  const shadowClient: ShadowClient = pooled ?? shadowClientOf((request, maxBodyBytes, reserve) => sendShadow(request, maxBodyBytes, reserve, shadow))
  const context: PipelineContext = {
    settings,
    logger,
    warnings,
    skipWarnings: new SkipWarnings(warnings, settings.maxConcurrentCallbacks, budget),
    admission,
    callbacks,
    budget,
    // The pipeline's shadow half never asks for live's forwarder: live is this reference's own.
    live: undefined as never,
    shadow: shadowClient,
    shadowMaxBytes: settings.maxBodyBytes,
    shadowRefusals,
    notAttemptedText: 'shadow: connection refused (not attempted)',
    sink: createDiffLogSink({ settings, logger, warnings, comparisons: metrics.comparisons.forGate(''), noise: metrics.noiseChecks.forGate('') }),
    shadowDeadlines: shadowDeadlines(settings.shadowTimeoutMs),
    inFlight: metrics.inFlight,
    skips: metrics.skips.forGate(''),
  }
  const tasks = new BackgroundTasks()
  const relayClient =
    live === 'relay'
      ? createUpstreamPool({ settings: { ...DEFAULT_HTTP_CLIENT, maxConnsPerHost: 0, maxIdleConnsPerHost: 256, maxIdleConns: 0 } }).liveRelayClient(liveUrl, LIVE_TIMEOUT_MS)
      : undefined
  const liveDeadlines = new DeadlineQueue<ClientConnection>(LIVE_TIMEOUT_MS, (client) => client.socket.end())
  const { server } = metrics

  function handleHead(client: ClientConnection, text: string): void {
    const started = performance.now()
    const head = parseRequestHead(text, client.socket.remoteAddress, liveAt.host)
    const liveBytes = Buffer.from(`${head.lines}\r\n`, 'latin1')
    const reason = decideShadow(admission, head.method, head.target, undefined)
    let comparison: PendingComparison | undefined
    if (reason !== undefined) skip(context, reason, head.method, head.target)
    else {
      const carrier = pooled ? new Headers({ accept: '*/*', 'x-forwarded-for': '127.0.0.1' }) : { client, bytes: Buffer.from(`${head.lines}x-svc-mode: shadow\r\n\r\n`, 'latin1') }
      comparison = new PendingComparison(
        context,
        { id: crypto.randomUUID(), clientRequestId: head.requestId, method: head.method, target: head.target, headers: carrier as unknown as Headers, body: null },
        budget.open(),
      )
      comparison.start(tasks)
    }
    if (relayClient !== undefined) {
      const request = { method: head.method, pathAndQuery: head.target, headers: relayHeaders(head), body: null }
      relayLive(relayClient, request, new SocketSide(client.socket), settings.maxBodyBytes, comparison, {
        relayed: (outcome) => server.observe(head.method, outcome.status, (outcome.respondedAt - started) / 1000),
        failedUnexpectedly: () => client.socket.end(),
      })
      return
    }
    if (client.live === undefined || client.live.closed) client.live = new Pinned(liveHostname, livePort)
    const deadline = liveDeadlines.add(client)
    const reader = new ResponseReader(head.method, settings.maxBodyBytes)
    const { socket } = client
    client.live.send(liveBytes, {
      reader,
      started,
      onChunk: (chunk) => socket.write(chunk),
      onHead() {
        deadline.cancel()
        const { status, fields, setCookies } = reader.head!
        comparison?.liveAnswered(status, headerMapOfFields(fields, setCookies), started)
      },
      onDone() {
        comparison?.liveBodyEnded({ kind: 'complete', bytes: reader.body })
        server.observe(head.method, reader.head!.status, (performance.now() - started) / 1000)
      },
      onFail(error) {
        deadline.cancel()
        comparison?.liveBodyEnded({ kind: 'failed', error })
        socket.end()
      },
    })
  }

  const options: Bun.TCPSocketListenOptions<ClientConnection> & { reusePort: boolean } = {
    hostname: '127.0.0.1',
    port,
    reusePort: SHARED_PORT,
    socket: {
      open(socket) {
        socket.data = new ClientConnection(socket)
      },
      data(socket, chunk) {
        const client = socket.data
        const all = client.held === undefined ? chunk : Buffer.concat([client.held, chunk])
        const end = all.indexOf(HEAD_END)
        if (end < 0) {
          client.held = Buffer.from(all)
          return
        }
        client.held = undefined
        handleHead(client, all.toString('latin1', 0, end))
      },
      close(socket) {
        const client = socket.data
        client.live?.end()
        for (const each of client.shadows) each.end()
      },
    },
  }
  Bun.listen(options)
}

/** The relay's client side for this reference: live's head and body written to the socket, no backpressure. */
class SocketSide {
  private pending: string | undefined
  watcher: ClientWatcher | undefined
  constructor(private readonly socket: Bun.Socket<ClientConnection>) {}
  head(head: ResponseHead, statusLine: string, framing: Framing): void {
    this.pending = clientHead(head, statusLine, framing, false).text
  }
  body(data: Buffer, from: number, to: number): boolean {
    const prefix = this.pending ?? ''
    this.pending = undefined
    const bytes = Buffer.allocUnsafe(prefix.length + to - from)
    bytes.write(prefix, 0, 'latin1')
    data.copy(bytes, prefix.length, from, to)
    this.socket.write(bytes)
    return true
  }
  end(): void {
    if (this.pending !== undefined) this.socket.write(this.pending)
    this.pending = undefined
  }
  problem(): void {
    this.socket.end()
  }
  broken(): void {
    this.socket.end()
  }
  finished(): void {}
}

/** The live request's fields for our client, from the head this reference read (a FieldList, as the raw server makes one). */
function relayHeaders(head: RequestHead): FieldList {
  const names: string[] = []
  const values: string[] = []
  for (const line of head.lines.split('\r\n').slice(2)) {
    const colon = line.indexOf(':')
    if (colon > 0) {
      names.push(line.slice(0, colon))
      values.push(line.slice(colon + 2))
    }
  }
  return new FieldList(names, values)
}

/** The shadow's side on the client connection's own shadow connections: one not busy, else a new one. */
function sendShadow(request: WholeRequest, maxBodyBytes: number, reserve: ((bytes: number) => boolean) | undefined, shadow: URL): Promise<WholeResponse> {
  const { client, bytes } = request.headers as unknown as ShadowCarrier
  let connection = client.shadows.find((each) => !each.busy && !each.closed)
  if (connection === undefined) {
    connection = new Pinned(shadow.hostname, Number(shadow.port))
    if (client.shadows.length >= 4) client.shadows = client.shadows.filter((each) => !each.closed)
    client.shadows.push(connection)
  }
  const signal: AbortLike = request.signal
  const pinned = connection
  return new Promise<WholeResponse>((resolve, reject) => {
    const reader = new ResponseReader(request.method, maxBodyBytes, reserve)
    const started = performance.now()
    let headAt = 0
    const onAbort = () => {
      pinned.end()
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort)
    pinned.send(bytes, {
      reader,
      started,
      onHead: () => (headAt = performance.now()),
      onDone() {
        signal.removeEventListener('abort', onAbort)
        if (reader.overBudget) return resolve({ kind: 'over-budget' })
        const { status, fields, setCookies } = reader.head!
        resolve({ kind: 'complete', status, headers: headerMapOfFields(fields, setCookies), body: reader.body, latencyMs: headAt - started })
      },
      onFail(error) {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    })
  })
}
