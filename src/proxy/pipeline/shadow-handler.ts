/**
 * The shadowing core, shared by the proxy server and the `svc_gate` module
 * (docs/proxy.md "Reusing the core": one implementation of forwarding,
 * rules, sampling, diff, redaction). `createShadowHandler(settings, deps)` gives a
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
 *
 * A request's life, one stage a file: `admit.ts` (shadowed or not, the
 * body read), `forward-live.ts`, `forward-shadow.ts` (at the same time, in
 * the background), `collect.ts` (both sides, within the shadow timeout),
 * `compare-or-report.ts` (the sink). Live's half and the background half
 * share one `PendingComparison`; the handler's parts they all read are
 * its `PipelineContext`.
 */
import type { FieldList, RequestFields } from '../../net/field-list.ts'
import { createLogger, rateLimited, type Logger } from '../../log/index.ts'
import { Registry, type SkipReason } from '../../metrics/index.ts'
import { CidrSet } from '../../net/cidr.ts'
import { REQUEST_ID_HEADER } from '../../net/request-id.ts'
import { pathAndQueryOf, splitTarget } from '../../net/request-target.ts'
import { problemResponse, type Problem } from '../../errors/problem.ts'
import { decideShadow, type AdmissionPolicy } from '../policy/admission-policy.ts'
import { ByteBudget, DEFAULT_MAX_BYTES_IN_FLIGHT, type Reservation } from '../policy/byte-budget.ts'
import type { CircuitBreaker } from '../policy/circuit-breaker.ts'
import { upstreamRequestFields, upstreamRequestHeaders } from '../policy/forward-headers.ts'
import { RefusalWindow } from '../policy/refusal-window.ts'
import { createSampler, type RandomSource } from '../policy/sampler.ts'
import { Semaphore } from '../policy/semaphore.ts'
import type { ShadowSettings } from '../policy/shadow-settings.ts'
import { REPORT_FAILED, type CaptureSink } from '../sinks/capture-sink.ts'
import { createDiffLogSink } from '../sinks/diff-log-sink.ts'
import type { UpstreamPool } from '../upstream/upstream-client.ts'
import { createUpstreamPool } from '../upstream/upstream-pool.ts'
import { admit, type Admission } from './admit.ts'
import { BackgroundTasks, type DrainResult } from './background-tasks.ts'
import { shadowDeadlines } from './collect.ts'
import { forwardLive, forwardUnshadowed } from './forward-live.ts'
import { createLiveForwarder } from './live-forwarder.ts'
import { skip, type PipelineContext } from './pipeline-context.ts'
import { createProxyMetrics, type ProxyMetrics } from './proxy-metrics.ts'
import {
  createNotAttemptedReport,
  createRefusedShadowForwarder,
  type NotAttemptedReportOptions,
  type NotAttemptedRequest,
} from './refused-shadow-forwarder.ts'
import { PendingComparison } from './pending-comparison.ts'
import { createNoiseCheck } from './repeat-live.ts'
import { relayLive, type ClientSide, type RelayDone, type RelayOutcome } from './relay-live.ts'
import { SkipWarnings } from './skip-warnings.ts'

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
  /** The refusal window's monotonic clock in ms (tests move it by hand). @default performance.now */
  readonly shadowRefusalClock?: () => number
}

/** What the host knows about a request that the Request object does not say. */
export interface ForwardContext {
  /** The client's address (Bun: `server.requestIP(request)?.address`), for X-Forwarded-For. */
  readonly clientAddress?: string
  /** Path and query to forward, when not the request URL's (a module mounted under a prefix). */
  readonly pathAndQuery?: string
}

/** A request the raw server read whole (`server/raw-connection.ts`). */
export interface RelayedRequest {
  readonly method: string
  /** Path and query, as sent. */
  readonly target: string
  /** Its fields as read (the list is the request's: the forwarding rules edit it in place). */
  readonly fields: FieldList
  /** The body as read; null without one. */
  readonly body: Uint8Array | null
  /** The client's address, for X-Forwarded-For. */
  readonly clientAddress: string | undefined
}

export interface ShadowHandler {
  readonly settings: ShadowSettings
  readonly metrics: ProxyMetrics
  /** Forwards one request; resolves with live's response (or a 502/504 Problem). Never rejects. */
  fetch(request: Request, context?: ForwardContext): Promise<Response>
  /**
   * The raw server's entry (docs/proxy.md "The raw server"): forwards one
   * request, live's response relayed to `side` as it comes; `side.finished()`
   * is called when it is through. Never throws. Undefined when live is not `http:`.
   */
  readonly relay: ((request: RelayedRequest, side: ClientSide) => void) | undefined
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

const NO_TRUSTED_PROXIES = new CidrSet([])

export function createShadowHandler(settings: ShadowSettings, deps: ShadowHandlerDeps = {}): ShadowHandler {
  const logger = deps.logger ?? createLogger({ level: 'info', format: 'text' })
  const warnings = rateLimited(logger, deps.warningIntervalMs ?? 10_000)
  const metrics = deps.metrics ?? createProxyMetrics(new Registry())
  const ownPool = deps.pool === undefined
  const pool = deps.pool ?? createUpstreamPool({ settings: settings.httpClient, metrics: metrics.client })
  const trustedProxies = settings.trustedProxies ?? NO_TRUSTED_PROXIES
  const sink =
    deps.sink ??
    createDiffLogSink({
      settings,
      logger,
      warnings,
      comparisons: metrics.comparisons.forGate(settings.gate),
      noise: metrics.noiseChecks.forGate(settings.gate),
    })
  const callbacks = new Semaphore(settings.maxConcurrentCallbacks)
  const admission: AdmissionPolicy = {
    rules: settings.shadowRules,
    sample: createSampler(settings.samplingRate, deps.random),
    maxBodyBytes: settings.maxBodyBytes,
    breaker: deps.breaker,
    callbacks,
  }
  const budget = new ByteBudget(settings.maxBytesInFlight ?? DEFAULT_MAX_BYTES_IN_FLIGHT)
  const shadowRefusals = new RefusalWindow(deps.shadowRefusalWindowMs ?? 1000, deps.shadowRefusalClock)
  const context: PipelineContext = {
    settings,
    logger,
    warnings,
    skipWarnings: new SkipWarnings(warnings, settings.maxConcurrentCallbacks, budget),
    admission,
    callbacks,
    budget,
    live: createLiveForwarder({
      client: pool.client('live', settings.liveUrl),
      timeoutMs: settings.liveTimeoutMs,
      maxBodyBytes: settings.maxBodyBytes,
      slotsBounded: settings.httpClient.maxConnsPerHost !== 0,
    }),
    shadow: pool.shadowClient(settings.shadowUrl, shadowHeadTimeout(settings)),
    // The shadow's body is always bounded: by the body bound, else by the budget (docs/proxy.md "Memory").
    shadowMaxBytes: settings.maxBodyBytes === 0 ? budget.limit : settings.maxBodyBytes,
    shadowRefusals,
    notAttemptedText: `shadow: connection refused (not attempted: the shadow refused a connection and has not answered since; one is tried at most every ${shadowRefusals.windowMs} ms)`,
    sink,
    shadowDeadlines: shadowDeadlines(settings.shadowTimeoutMs),
    inFlight: metrics.inFlight,
    skips: metrics.skips.forGate(settings.gate),
    noise: createNoiseCheck(settings, {
      live: pool.client('live', settings.liveUrl),
      budget,
      skips: metrics.noiseSkips.forGate(settings.gate),
      random: deps.random,
    }),
  }
  const { live } = context
  const tasks = new BackgroundTasks()
  const { server } = metrics
  const { shadowTimeoutMs } = settings

  const logUnexpected = (error: unknown) => logger.error('background comparison failed unexpectedly', { error })
  // While the shadow is known to be down (docs/proxy.md "Forwarding": an
  // error whatever live sends), a sink that takes an error from the statuses
  // and the cause alone gets it without anything of live's response kept.
  const notAttempted: NotAttemptedReportOptions | undefined =
    sink.shadowNotAttempted === undefined
      ? undefined
      : {
          report: sink.shadowNotAttempted.bind(sink),
          notAttemptedText: context.notAttemptedText,
          settle(outcome) {
            callbacks.release()
            if (outcome.kind === 'skipped') context.skips.inc(outcome.reason)
          },
          onUnexpected: logUnexpected,
        }
  const forwardRefused = notAttempted && createRefusedShadowForwarder({ ...notAttempted, live })
  // The raw server relays live itself and tells the sink through this.
  const reportNotAttempted = notAttempted && createNotAttemptedReport(notAttempted)

  async function handle(request: Request, forwardContext: ForwardContext | undefined, started: number): Promise<Response> {
    const method = request.method
    const url = request.url
    const target = forwardContext?.pathAndQuery ?? pathAndQueryOf(url)
    const headers = upstreamRequestHeaders(request.headers, {
      clientAddress: forwardContext?.clientAddress,
      proto: url.startsWith('https:') ? 'https' : 'http',
      peerTrusted: trustedProxies.has(forwardContext?.clientAddress),
    })
    const body = method === 'GET' || method === 'HEAD' ? null : request.body
    const admission = admit(context, request, method, target, body)
    const admitted = admission instanceof Promise ? await admission : admission
    let response: Response
    switch (admitted.kind) {
      case 'skipped':
        skip(context, admitted.reason, method, target)
        response = await forwardUnshadowed(live, method, target, headers, admitted.body)
        break
      case 'unreadable':
        skip(context, 'report_failed', method, target)
        logger.debug('request body could not be read', {
          'request.method': method,
          'request.path': splitTarget(target).path,
          error: admitted.error,
        })
        response = problemResponse({
          type: '/errors/bad-request',
          title: 'Bad request',
          status: 400,
          detail: 'the request body could not be read',
        })
        break
      case 'admitted':
        response = await shadowed(request, method, target, headers, admitted)
        break
    }
    server.observe(method, response.status, (performance.now() - started) / 1000)
    return response
  }

  /** Holds a callbacks slot and the reservation on entry; every path below gives each back exactly once. */
  function shadowed(
    request: Request,
    method: string,
    target: string,
    headers: Headers,
    admitted: Extract<Admission, { kind: 'admitted' }>,
  ): Promise<Response> {
    const clientRequestId = clientRequestIdOf(request.headers)
    const { body, reservation } = admitted
    // The shadow is known to be down (`refusal-window.ts`) and the sink takes
    // the error without a capture: forwarded as an unshadowed request,
    // compared as an error when live's headers are in
    // (`refused-shadow-forwarder.ts`, which gives the slot back).
    if (forwardRefused !== undefined && shadowRefusals.knownDown) {
      // Not a background comparison: nothing of it is held past live's exchange.
      reservation.release()
      return forwardRefused({ clientRequestId, method, target, headers, body })
    }
    // The proxy's own id for the capture: a client's X-Request-ID may be
    // reused, and the API keeps one capture per id (docs/proxy.md "API
    // mode"). The client's id still reaches live and the shadow, and is
    // stored among the request headers and logged beside it.
    const id = crypto.randomUUID()
    const comparison = new PendingComparison(context, { id, clientRequestId, method, target, headers, body }, reservation)
    // Started first, so the shadow request leaves in the same tick as live's.
    comparison.start(tasks)
    return forwardLive(live, comparison)
  }

  /** A bug, not an upstream failure (those are answered 502/504): logged, and still a request received, as the metrics count every one. */
  function failedUnexpectedly(method: string, started: number, error: unknown): void {
    logRequestFailure(method, error)
    server.observe(method, 500, (performance.now() - started) / 1000)
  }

  function logRequestFailure(method: string, error: unknown): void {
    logger.error('proxy request failed unexpectedly', { 'request.method': method, error })
  }

  const liveRelay = pool.liveRelayClient(settings.liveUrl, settings.liveTimeoutMs)
  const { maxBodyBytes } = settings

  /**
   * An admitted request's body in the bytes-in-flight budget on the raw
   * server, as `admit` reserves it on Bun.serve; or `memory_budget`, the
   * callbacks slot then given back.
   */
  function reserveBody(body: Uint8Array): Reservation | SkipReason {
    const reservation = budget.open()
    if (reservation.add(body.byteLength)) return reservation
    reservation.release()
    callbacks.release()
    return 'memory_budget'
  }

  /**
   * The raw server's entry: the same stages as `handle` and `shadowed`, on
   * our HTTP/1.1 client and the raw server, with callbacks from the
   * request read to its end (`RelayedEnd`); an unexpected failure is
   * caught here and there.
   */
  function relayed(request: RelayedRequest, side: ClientSide): void {
    const end = new RelayedEnd(request.method, side)
    try {
      relayStages(request, side, end)
    } catch (error) {
      end.failedUnexpectedly(error)
    }
  }

  function relayStages(request: RelayedRequest, side: ClientSide, end: RelayedEnd): void {
    const { method, target, clientAddress } = request
    // As `handle` forwards them: a GET or HEAD goes on without the body a client may have sent.
    const body = method === 'GET' || method === 'HEAD' ? null : request.body
    // The client's X-Request-ID, read before the rules edit the list.
    const clientRequestId = clientRequestIdOf(request.fields)
    const headers = upstreamRequestFields(request.fields, {
      clientAddress,
      proto: 'http',
      peerTrusted: trustedProxies.has(clientAddress),
    })
    const live = { method, pathAndQuery: target, headers, body }
    // A body is reserved before the shadow's state is asked, as on Bun.serve:
    // one that does not fit is `memory_budget` on both servers.
    let decision: Reservation | SkipReason | undefined = decideShadow(admission, method, target, body === null ? undefined : body.byteLength)
    if (decision === undefined && body !== null) decision = reserveBody(body)
    if (typeof decision === 'string') {
      skip(context, decision, method, target)
      relayLive(liveRelay!, live, side, maxBodyBytes, undefined, end)
      return
    }
    if (reportNotAttempted !== undefined && shadowRefusals.knownDown) {
      // The shadow is known to be down: live alone, holding the callbacks slot only (as `forwardRefused`),
      // the error told once live's status is known.
      decision?.release()
      end.markNotAttempted(clientRequestId, target)
      relayLive(liveRelay!, live, side, maxBodyBytes, undefined, end)
      return
    }
    const reservation = decision ?? budget.open()
    const admitted = { id: crypto.randomUUID(), clientRequestId, method, target, headers, body }
    const comparison = new PendingComparison(context, admitted, reservation)
    comparison.start(tasks)
    relayLive(liveRelay!, live, side, maxBodyBytes, comparison, end)
  }

  /** How a relayed request ends: counted, the refused shadow's error told, the connection told it may read on. */
  class RelayedEnd implements RelayDone, NotAttemptedRequest {
    readonly started = performance.now()
    /** Set when the shadow was not attempted (known to be down): told once live's status is known, this end as its request. */
    private tellsNotAttempted = false
    clientRequestId: string | undefined
    target = ''
    /** Told once: a throw further down the same call does not end it twice. */
    private ended = false

    constructor(
      readonly method: string,
      private readonly side: ClientSide,
    ) {}

    /** The request's own fields, not an object of them: a shadow that is down has every request take this path. */
    markNotAttempted(clientRequestId: string | undefined, target: string): void {
      this.tellsNotAttempted = true
      this.clientRequestId = clientRequestId
      this.target = target
    }

    relayed(outcome: RelayOutcome): void {
      if (this.ended) return
      this.ended = true
      try {
        if (this.tellsNotAttempted) {
          // A client that left before live's head leaves no live status to tell: not compared, as on the full path.
          if (outcome.clientLeft) notAttempted!.settle(REPORT_FAILED)
          else reportNotAttempted!(this, outcome.noResponse === undefined ? outcome.status : 0, outcome.noResponse)
        }
        server.observe(this.method, outcome.status, (outcome.respondedAt - this.started) / 1000)
      } catch (error) {
        // The client has its answer; the bug is logged, and the connection reads on.
        logRequestFailure(this.method, error)
      }
      this.side.finished()
    }

    failedUnexpectedly(error: unknown): void {
      if (this.ended) return
      this.ended = true
      // A request whose shadow was not attempted holds a callbacks slot until it is settled: not compared.
      if (this.tellsNotAttempted) notAttempted!.settle(REPORT_FAILED)
      failedUnexpectedly(this.method, this.started, error)
      this.side.problem(INTERNAL_PROBLEM)
      this.side.finished()
    }
  }

  return {
    settings,
    metrics,
    relay: liveRelay === undefined ? undefined : relayed,
    fetch(request, forwardContext) {
      const started = performance.now()
      return handle(request, forwardContext, started).catch((error: unknown) => {
        failedUnexpectedly(request.method, started, error)
        return problemResponse(INTERNAL_PROBLEM)
      })
    },
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
function clientRequestIdOf(headers: RequestFields): string | undefined {
  const given = headers.get(REQUEST_ID_FIELD)
  return given === null ? undefined : given.slice(0, MAX_LOGGED_REQUEST_ID)
}

const MAX_LOGGED_REQUEST_ID = 128
/** The name as a FieldList keeps it (lower case): looked up per request, it is lowered once here. */
const REQUEST_ID_FIELD = REQUEST_ID_HEADER.toLowerCase()

/** The answer to a request the proxy failed on unexpectedly: nothing internal is said. */
const INTERNAL_PROBLEM: Problem = {
  type: '/errors/internal',
  title: 'Internal server error',
  status: 500,
  detail: 'the proxy failed to handle the request',
}

/** The head's own timeout, when it is shorter than the whole exchange's (which otherwise ends the wait first): 0 for none. */
function shadowHeadTimeout(settings: ShadowSettings): number {
  const ms = settings.shadowHeadTimeoutMs ?? 0
  return ms > 0 && ms < settings.shadowTimeoutMs ? ms : 0
}
