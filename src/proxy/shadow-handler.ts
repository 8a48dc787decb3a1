/**
 * The shadowing core, shared by the proxy server and the `svc_gate` module
 * (DESIGN.md "Web-server module": "one implementation of forwarding, rules,
 * sampling, diff, redaction"). `createShadowHandler(settings, deps)` gives a
 * fetch-style handler:
 *
 * - Live and shadow are sent at the same time; the client gets live's
 *   response as live sent it (status, headers minus hop-by-hop, the exact
 *   body bytes), streamed, and never waits for the shadow or the diff.
 * - The shadow exchange, the comparison (standalone) or the report (API
 *   mode) run in the background, at most SVC_APP_MAX_CONCURRENT_CALLBACKS
 *   at a time, each bounded, holding at most SVC_APP_MAX_BYTES_IN_FLIGHT
 *   bytes together (`byte-budget.ts`), and drained at shutdown.
 * - Every request ends as exactly one of: compared, reported, or skipped
 *   with a reason (`svc_comparisons_skipped_total`).
 */
import { canonicalHeaderName, type HeaderMap } from '../diff/index.ts'
import { createLogger, rateLimited, type Logger } from '../log/index.ts'
import { Registry, type SkipReason } from '../metrics/index.ts'
import { BackgroundTasks, DrainAbortReason, type DrainResult } from './background-tasks.ts'
import { contentLength, readRequestBody, type CopyControl } from './upstream/bounded-body.ts'
import { ByteBudget, DEFAULT_MAX_BYTES_IN_FLIGHT, MemoryBudgetReason, type Reservation } from './policy/byte-budget.ts'
import { headerMapOf } from './upstream/header-map.ts'
import {
  failedExchange,
  type Capture,
  type CapturedExchange,
  type CaptureSink,
  type SinkOutcome,
} from './sinks/capture-sink.ts'
import type { CircuitBreaker } from './policy/circuit-breaker.ts'
import { createDiffLogSink } from './sinks/diff-log-sink.ts'
import { CidrSet } from '../net/cidr.ts'
import { SHADOW_MODE_HEADER, SHADOW_MODE_VALUE, upstreamRequestHeaders } from './policy/forward-headers.ts'
import { createLiveForwarder, type LiveResult } from './live-forwarder.ts'
import { toLiveExchange, type LiveOutcome } from './live-outcome.ts'
import { REQUEST_ID_HEADER } from '../net/request-id.ts'
import { pathAndQueryOf, splitTarget } from '../net/request-target.ts'
import { problemResponse } from '../errors/problem.ts'
import { createProxyMetrics, type ProxyMetrics } from './proxy-metrics.ts'
import { RefusalWindow } from './policy/refusal-window.ts'
import { createRefusedShadowForwarder } from './refused-shadow-forwarder.ts'
import { createSampler, type RandomSource } from './policy/sampler.ts'
import { Semaphore } from './policy/semaphore.ts'
import { decideShadow, type AdmissionPolicy } from './policy/admission-policy.ts'
import type { ShadowSettings } from './policy/shadow-settings.ts'
import type { UpstreamPool } from './upstream/upstream-client.ts'
import { createUpstreamPool } from './upstream/upstream-pool.ts'
import { TimeoutReason, toUpstreamError } from './upstream/upstream-error.ts'

export interface ShadowHandlerDeps {
  /** @default a logger at info level, text format, to stdout */
  readonly logger?: Logger
  /** The core's metrics, registered once per registry. @default on a private registry */
  readonly metrics?: ProxyMetrics
  /** Where captures go. @default compare and log (standalone mode) */
  readonly sink?: CaptureSink
  /** API mode: while it is open, requests are not shadowed (`breaker_open`). */
  readonly breaker?: CircuitBreaker
  /** The outbound client; pass one to share it (and its per-host limits) with the API client. */
  readonly pool?: UpstreamPool
  /** For sampling. @default Math.random */
  readonly random?: RandomSource
  /** Interval of the rate-limited warnings, in ms. @default 10000 */
  readonly warningIntervalMs?: number
  /** After the shadow refuses a connection, how long it is not tried again (`refusal-window.ts`). @default 1000 */
  readonly shadowRefusalWindowMs?: number
}

/** What the host knows about a request that the Request object does not say. */
export interface ForwardContext {
  /** The client's address (Bun: `server.requestIP(request)?.address`), for X-Forwarded-For. */
  readonly clientAddress?: string
  /** Path and query to forward, when not the request URL's (a module mounted under a prefix). */
  readonly pathAndQuery?: string
}

export interface ShadowHandler {
  readonly settings: ShadowSettings
  readonly metrics: ProxyMetrics
  /** Forwards one request; resolves with live's response (or a 502/504 Problem). Never rejects. */
  fetch(request: Request, context?: ForwardContext): Promise<Response>
  /** Background comparisons in flight. */
  readonly inFlight: number
  /** Bytes they hold now, in the bytes-in-flight budget (docs/proxy.md "Memory"). */
  readonly bytesInFlight: number
  /**
   * Waits for the background comparisons, at most `timeoutMs` (default: the
   * shadow timeout), then aborts the rest, which count as `report_failed`.
   */
  drain(timeoutMs?: number): Promise<DrainResult>
  /** `drain()`, then closes the outbound connection pool (unless it was passed in). */
  close(timeoutMs?: number): Promise<DrainResult>
}

const EMPTY = new Uint8Array(0)
const NO_TRUSTED_PROXIES = new CidrSet([])

export function createShadowHandler(settings: ShadowSettings, deps: ShadowHandlerDeps = {}): ShadowHandler {
  const logger = deps.logger ?? createLogger({ level: 'info', format: 'text' })
  const warnings = rateLimited(logger, deps.warningIntervalMs ?? 10_000)
  const metrics = deps.metrics ?? createProxyMetrics(new Registry())
  const ownPool = deps.pool === undefined
  const pool = deps.pool ?? createUpstreamPool({ settings: settings.httpClient, metrics: metrics.client })
  const skips = metrics.skips.forGate(settings.gate)
  const trustedProxies = settings.trustedProxies ?? NO_TRUSTED_PROXIES
  const sink =
    deps.sink ??
    createDiffLogSink({ settings, logger, warnings, comparisons: metrics.comparisons.forGate(settings.gate) })
  const callbacks = new Semaphore(settings.maxConcurrentCallbacks)
  const admission: AdmissionPolicy = {
    rules: settings.shadowRules,
    sample: createSampler(settings.samplingRate, deps.random),
    maxBodyBytes: settings.maxBodyBytes,
    breaker: deps.breaker,
    callbacks,
  }
  const live = createLiveForwarder({
    client: pool.client('live', settings.liveUrl),
    timeoutMs: settings.liveTimeoutMs,
    maxBodyBytes: settings.maxBodyBytes,
    slotsBounded: settings.httpClient.maxConnsPerHost !== 0,
  })
  const shadow = pool.shadowClient(settings.shadowUrl)
  const shadowRefusals = new RefusalWindow(deps.shadowRefusalWindowMs ?? 1000)
  const notAttemptedText = `shadow: connection refused (not attempted: refused within the last ${shadowRefusals.windowMs} ms)`
  const tasks = new BackgroundTasks()
  const { server, inFlight } = metrics
  const { shadowTimeoutMs, maxBodyBytes } = settings
  const budget = new ByteBudget(settings.maxBytesInFlight ?? DEFAULT_MAX_BYTES_IN_FLIGHT)
  // The shadow's body is always bounded: by the body bound, else by the budget (docs/proxy.md "Memory").
  const shadowMaxBytes = maxBodyBytes === 0 ? budget.limit : maxBodyBytes

  const logUnexpected = (error: unknown) => logger.error('background comparison failed unexpectedly', { error })
  // While the shadow is known to be down (DESIGN.md "Diff semantics": an
  // error whatever live sends), a sink that takes an error from the statuses
  // and the cause alone gets it without anything of live's response kept.
  const forwardRefused =
    sink.shadowNotAttempted === undefined
      ? undefined
      : createRefusedShadowForwarder({
          live,
          report: sink.shadowNotAttempted.bind(sink),
          notAttemptedText,
          settle(outcome) {
            callbacks.release()
            if (outcome.kind === 'skipped') skips.inc(outcome.reason)
          },
          onUnexpected: logUnexpected,
        })

  /** Log records name the path only: a query string may carry a token. */
  function skip(reason: SkipReason, method: string, target: string): void {
    skips.inc(reason)
    if (reason === 'callbacks_full') {
      warnings.warn('comparison dropped: too many background comparisons', {
        'request.method': method,
        'request.path': splitTarget(target).path,
        max_concurrent_callbacks: settings.maxConcurrentCallbacks,
      })
    } else if (reason === 'memory_budget') {
      warnings.warn('comparison dropped: the bytes-in-flight budget is full', {
        'request.method': method,
        'request.path': splitTarget(target).path,
        max_bytes_in_flight: budget.limit,
        bytes_in_flight: budget.used,
      })
    }
  }

  async function handle(request: Request, context: ForwardContext | undefined): Promise<Response> {
    const started = performance.now()
    const method = request.method
    const url = request.url
    const target = context?.pathAndQuery ?? pathAndQueryOf(url)
    const headers = upstreamRequestHeaders(request.headers, {
      clientAddress: context?.clientAddress,
      proto: url.startsWith('https:') ? 'https' : 'http',
      peerTrusted: trustedProxies.has(context?.clientAddress),
    })
    const body = method === 'GET' || method === 'HEAD' ? null : request.body
    const reason = decideShadow(admission, method, target, body === null ? undefined : contentLength(request.headers))
    let response: Response
    if (reason !== undefined) {
      skip(reason, method, target)
      response = live.respond(await live.send(method, target, headers, body))
    } else {
      response = await shadowed(request, method, target, headers, body)
    }
    server.observe(method, response.status, (performance.now() - started) / 1000)
    return response
  }

  /** Holds a callbacks slot on entry; every path below gives it back exactly once. */
  async function shadowed(
    request: Request,
    method: string,
    target: string,
    headers: Headers,
    body: ReadableStream<Uint8Array> | null,
  ): Promise<Response> {
    // The comparison's bytes in the budget, from the request body on; given back when it ends.
    const reservation = budget.open()
    let bytes: Uint8Array = EMPTY
    if (body !== null) {
      try {
        const announced = contentLength(request.headers)
        if (announced !== undefined) {
          if (!reservation.add(announced)) {
            callbacks.release()
            skip('memory_budget', method, target)
            return live.respond(await live.send(method, target, headers, body))
          }
          bytes = await request.bytes()
        } else {
          const read = await readRequestBody(body, maxBodyBytes, reservation.add)
          if (read.kind !== 'complete') {
            reservation.release()
            callbacks.release()
            skip(read.kind === 'too-large' ? 'body_too_large' : 'memory_budget', method, target)
            return live.respond(await live.send(method, target, headers, read.stream))
          }
          bytes = read.bytes
        }
      } catch (error) {
        // The client went away mid-upload: nothing to forward or compare.
        reservation.release()
        callbacks.release()
        skip('report_failed', method, target)
        logger.debug('request body could not be read', { 'request.method': method, 'request.path': splitTarget(target).path, error })
        return problemResponse({
          type: '/errors/bad-request',
          title: 'Bad request',
          status: 400,
          detail: 'the request body could not be read',
        })
      }
    }
    // The proxy's own id for the capture: a client's X-Request-ID may be
    // reused, and the API keeps one capture per id (docs/proxy.md "API
    // mode"). The client's id still reaches live and the shadow, and is
    // stored among the request headers and logged beside it.
    const id = crypto.randomUUID()
    const clientRequestId = clientRequestIdOf(request.headers)
    // The shadow refused a connection within the window and the sink takes
    // the error without a capture: forwarded as an unshadowed request,
    // compared as an error when live's headers are in
    // (`refused-shadow-forwarder.ts`, which gives the slot back).
    if (forwardRefused !== undefined && shadowRefusals.refusedAgo() !== undefined) {
      // Not a background comparison: nothing of it is held past live's exchange.
      reservation.release()
      return forwardRefused({ id, clientRequestId, method, target, headers, body: body === null ? null : bytes })
    }
    const createdAt = new Date()
    let settleLive!: (outcome: LiveOutcome) => void
    const liveOutcome = new Promise<LiveOutcome>((resolve) => {
      settleLive = resolve
    })
    inFlight.inc()
    let liveReserved = 0
    const copy: CopyControl = {
      dropped: false,
      reserve(bytes) {
        liveReserved += bytes
        return reserve(bytes)
      },
    }
    // The shadow timeout (or the drain) ends the exchanges, not the task: a
    // shadow that timed out is still a capture, handed to the sink with the
    // task's signal, which only the drain aborts.
    const exchange = new AbortController()
    // A client that reads live's body slowly (or never) must not hold the
    // slot past the bound, nor the copy of a body nobody will compare.
    const abandon = (reason: unknown) => {
      exchange.abort(reason)
      copy.dropped = true
      copy.drop?.()
      settleLive({ kind: 'abandoned', reason })
    }
    // Bytes the budget cannot hold end the comparison (`memory_budget`); live streams on without the copy.
    const reserve = (bytes: number): boolean => {
      if (reservation.add(bytes)) return true
      abandon(new MemoryBudgetReason(budget.limit))
      return false
    }
    // Started first, so the shadow request leaves in the same tick as live's.
    tasks.run(
      (task) =>
        compare(task.signal, {
          id,
          clientRequestId,
          method,
          target,
          headers,
          body: body === null ? null : bytes,
          createdAt,
          liveOutcome,
          settleLive,
          exchange: exchange.signal,
          abandon,
          reservation,
          reserve,
        }),
      logUnexpected,
      abandon,
    )
    const sendStarted = performance.now()
    const result: LiveResult = await live.send(method, target, headers, body === null ? null : bytes)
    if (!result.ok) {
      settleLive({
        kind: 'no-response',
        exchange: failedExchange(result.error.message, result.latencyMs, createdAt),
      })
      return live.respond(result)
    }
    const { status, headers: liveHeaders } = result.exchange.response
    // Read before the client's response is sent: Bun then drops Content-Length from these headers.
    const headerMap = headerMapOf(liveHeaders)
    return live.respond(
      result,
      (end) => {
        // A small body is copied whole by clone(), not chunk by chunk: reserved once it is in.
        if (end.kind === 'complete' && end.bytes.byteLength > liveReserved) reserve(end.bytes.byteLength - liveReserved)
        settleLive({ kind: 'response', status, headers: headerMap, end, latencyMs: performance.now() - sendStarted })
      },
      copy,
    )
  }

  interface Pending {
    readonly id: string
    readonly clientRequestId: string | undefined
    readonly method: string
    readonly target: string
    readonly headers: Headers
    /** The request body as read, or null when the request had none (GET, HEAD). */
    readonly body: Uint8Array | null
    readonly createdAt: Date
    readonly liveOutcome: Promise<LiveOutcome>
    /** Settles `liveOutcome`; the first call wins. */
    readonly settleLive: (outcome: LiveOutcome) => void
    /** Aborted by the shadow timeout or the drain: the shadow exchange and the wait for live's body. */
    readonly exchange: AbortSignal
    /** Aborts `exchange` and gives up live's body (first reason wins). */
    readonly abandon: (reason: unknown) => void
    /** The comparison's bytes in the budget; released when it ends. */
    readonly reservation: Reservation
    /** Reserves bytes as they arrive; when the budget is full, abandons the comparison (`memory_budget`). */
    readonly reserve: (bytes: number) => boolean
  }

  /**
   * The background half: the shadow exchange and live's body within the
   * shadow timeout, then the sink (bounded by its own timeout; `signal`
   * aborts only at the drain). Never rejects.
   */
  async function compare(signal: AbortSignal, pending: Pending): Promise<void> {
    const timer = setTimeout(abandonOnTimeout, shadowTimeoutMs, pending.abandon, shadowTimeoutMs)
    let outcome: SinkOutcome
    try {
      const shadowSide = collectShadow(pending)
      const [liveSide, shadowExchange] = await Promise.all([pending.liveOutcome, shadowSide])
      clearTimeout(timer)
      if (liveSide.kind === 'abandoned') throw liveSide.reason
      const liveExchange = toLiveExchange(liveSide, pending.createdAt)
      if (liveExchange === 'too-large') {
        outcome = { kind: 'skipped', reason: 'body_too_large' }
      } else if (liveExchange === 'incomplete') {
        outcome = { kind: 'skipped', reason: 'report_failed' }
      } else {
        const { path, rawQuery } = splitTarget(pending.target)
        const { headers } = pending
        const body = pending.body ?? EMPTY
        const capture: Capture = {
          id: pending.id,
          clientRequestId: pending.clientRequestId,
          method: pending.method,
          path,
          rawQuery,
          createdAt: pending.createdAt,
          // Built only for a sink that reads it (the API reporter; the diff does not).
          get request() {
            return { headers: shadowRequestHeaderMap(headers), body }
          },
          live: liveExchange,
          shadow: shadowExchange,
        }
        // The sink's own copy (the API reporter's encoded report) counts too.
        const held = sink.heldCopyBytes?.(body.byteLength + liveExchange.body.byteLength + shadowExchange.body.byteLength) ?? 0
        outcome = pending.reservation.add(held) ? await sink.submit(capture, signal) : { kind: 'skipped', reason: 'memory_budget' }
      }
    } catch (error) {
      const overBudget = error instanceof MemoryBudgetReason || pending.exchange.reason instanceof MemoryBudgetReason
      outcome = { kind: 'skipped', reason: overBudget ? 'memory_budget' : 'report_failed' }
      if (!overBudget && !(signal.reason instanceof DrainAbortReason)) {
        warnings.warn('comparison abandoned', { 'request.path': splitTarget(pending.target).path, error })
      }
    } finally {
      clearTimeout(timer)
      pending.reservation.release()
      callbacks.release()
      inFlight.dec()
    }
    if (outcome.kind === 'skipped') skip(outcome.reason, pending.method, pending.target)
  }

  /** The shadow's side; a shadow that fails (a body over the bound included: `too_large`) is a failed side, compared. */
  async function collectShadow(pending: Pending): Promise<CapturedExchange> {
    const signal = pending.exchange
    const started = performance.now()
    if (shadowRefusals.refusedAgo() !== undefined) return failedExchange(notAttemptedText, 0, new Date())
    try {
      const response = await shadow.send(
        {
          method: pending.method,
          pathAndQuery: pending.target,
          headers: pending.headers,
          body: pending.body,
          signal,
        },
        shadowMaxBytes,
        pending.reserve,
      )
      shadowRefusals.recordSuccess()
      if (response.kind === 'over-budget') throw new MemoryBudgetReason(budget.limit)
      return {
        status: response.status,
        headers: response.headers,
        body: response.body,
        latencyMs: Math.round(performance.now() - started),
        createdAt: new Date(),
      }
    } catch (error) {
      // Shutting down, or out of budget: not a shadow failure, the comparison is abandoned.
      if (error instanceof MemoryBudgetReason || signal.reason instanceof DrainAbortReason || signal.reason instanceof MemoryBudgetReason) {
        throw error
      }
      const failure = toUpstreamError(error, 'shadow', signal)
      if (failure.kind === 'refused') shadowRefusals.recordRefusal()
      return failedExchange(failure.message, Math.round(performance.now() - started), new Date())
    }
  }

  return {
    settings,
    metrics,
    fetch: (request, context) =>
      handle(request, context).catch((error: unknown) => {
        // A bug, not an upstream failure (those are answered 502/504): say nothing internal.
        logger.error('proxy request failed unexpectedly', { 'request.method': request.method, error })
        return problemResponse({
          type: '/errors/internal',
          title: 'Internal server error',
          status: 500,
          detail: 'the proxy failed to handle the request',
        })
      }),
    get inFlight() {
      return tasks.size
    },
    get bytesInFlight() {
      return budget.used
    },
    drain: (timeoutMs = shadowTimeoutMs) => tasks.drain(timeoutMs),
    async close(timeoutMs = shadowTimeoutMs) {
      const result = await tasks.drain(timeoutMs)
      warnings.flush()
      if (ownPool) pool.close()
      return result
    },
  }
}

/** The client's X-Request-ID as sent, whatever its form, cut to a length a log line can carry; undefined when absent. */
function clientRequestIdOf(headers: Headers): string | undefined {
  const given = headers.get(REQUEST_ID_HEADER)
  return given === null ? undefined : given.slice(0, MAX_LOGGED_REQUEST_ID)
}

const MAX_LOGGED_REQUEST_ID = 128

const SHADOW_MODE_NAME = canonicalHeaderName(SHADOW_MODE_HEADER)

/**
 * The captured request's headers: what the shadow was sent, so live's
 * plus `X-Svc-Mode: shadow` (in place of any a client sent), which is
 * never redacted (docs/proxy.md "API mode").
 */
function shadowRequestHeaderMap(headers: Headers): HeaderMap {
  const map = headerMapOf(headers)
  map[SHADOW_MODE_NAME] = [SHADOW_MODE_VALUE]
  return map
}

/** Made when the timer fires, not per request: an Error costs a stack capture. */
function abandonOnTimeout(abandon: (reason: unknown) => void, timeoutMs: number): void {
  abandon(new TimeoutReason(timeoutMs))
}
