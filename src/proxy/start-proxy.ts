/**
 * `bun run proxy` (docs/architecture.md: one entry, one flag): the proxy on
 * SVC_APP_PORT and its admin server on SVC_APP_ADMIN_PORT, in standalone or
 * API mode, with a graceful shutdown on SIGTERM/SIGINT.
 */
import { ConfigError } from '../config/config-error.ts'
import { withoutPassword } from '../net/base-url.ts'
import { listenOr } from '../net/listen.ts'
import type { Environment } from '../config/environment.ts'
import { loadProxyConfig, type ApiModeConfig, type ProxyConfig, type ProxyServerKind } from '../config/proxy-config.ts'
import { DEFAULT_DIFF_CONFIG, FieldPathError, Redaction } from '../diff/index.ts'
import { createLogger, rateLimited, type Logger } from '../log/index.ts'
import { registerProcessMetrics, Registry } from '../metrics/index.ts'
import { Readiness, startAdminServer, type AdminServer } from './admin-server.ts'
import { createApiClient } from './sinks/api-client.ts'
import { createApiReporter } from './sinks/api-reporter.ts'
import type { CaptureSink } from './sinks/capture-sink.ts'
import { CircuitBreaker } from './policy/circuit-breaker.ts'
import { plainAddress } from './policy/forward-headers.ts'
import { fetchGate } from './gate-fetch.ts'
import { createProxyMetrics, type ProxyMetrics } from './pipeline/proxy-metrics.ts'
import { createShadowHandler, type ShadowHandler } from './pipeline/shadow-handler.ts'
import type { ShadowSettings } from './policy/shadow-settings.ts'
import type { UpstreamPool } from './upstream/upstream-client.ts'
import { createUpstreamPool } from './upstream/upstream-pool.ts'
import { toUpstreamError } from './upstream/upstream-error.ts'
import { liveFailureProblem } from './pipeline/problem-response.ts'
import { problemResponse } from '../errors/problem.ts'
import { warnUnknownVariables } from '../config/known-variables.ts'
import { within } from '../async/within.ts'
import { workerIndexOf } from '../workers/ipc-messages.ts'
import { runWorker } from '../workers/run-worker.ts'
import { serveRaw } from './server/raw-server.ts'
import { startProxyPrimary } from './proxy-primary.ts'

export interface RunningProxy {
  /** `http://127.0.0.1:<port>` of the proxied traffic. */
  readonly url: string
  readonly port: number
  /** Undefined in a worker: its primary serves the admin port. */
  readonly admin: AdminServer | undefined
  readonly readiness: Readiness
  readonly registry: Registry
  readonly handler: ShadowHandler
  /** The circuit breaker around API calls (API mode only). */
  readonly breaker: CircuitBreaker | undefined
  /**
   * Graceful shutdown: readiness 503, no new connections, in-flight live
   * requests finish (within the write timeout), background comparisons and
   * reports drain within the shadow timeout, then everything closes.
   */
  stop(): Promise<void>
}

export interface CreateProxyOptions {
  /** Interface to listen on. @default '0.0.0.0' */
  readonly hostname?: string
  readonly logger?: Logger
  /** Rate-limited warnings interval, in ms. @default 10000 */
  readonly warningIntervalMs?: number
  /** Serve the admin port; a worker leaves it to its primary (docs/proxy.md "Workers"). @default true */
  readonly admin?: boolean
  /** Share SVC_APP_PORT with the other workers (SO_REUSEPORT). @default false */
  readonly reusePort?: boolean
  /** Warn of the variables this mode ignores; a worker leaves it to its primary, which says it once. @default true */
  readonly warnIgnored?: boolean
}

/** Bun's `idleTimeout` is in whole seconds, at most 255. */
const BUN_MAX_SERVER_IDLE_SECONDS = 255

/** Starts the proxy from a validated configuration; used by main.ts, the demo and the tests. */
export async function createProxy(config: ProxyConfig, options: CreateProxyOptions = {}): Promise<RunningProxy> {
  const logger = options.logger ?? createLogger({ level: config.logLevel, format: config.logFormat })
  const hostname = options.hostname ?? '0.0.0.0'
  if (options.warnIgnored !== false) warnIgnoredVariables(config, logger)
  const registry = new Registry({
    onCollectError: (error, metric) => logger.warn('metric collection failed', { metric: metric ?? '', error }),
  })
  const processMetrics = registerProcessMetrics(registry)
  const metrics = createProxyMetrics(registry)
  const readiness = new Readiness()
  // Up first, so that /health/live answers and /health/ready says 503 while the gate is fetched.
  let admin: AdminServer | undefined
  try {
    if (options.admin !== false) {
      admin = listenOr('SVC_APP_ADMIN_PORT', config.adminPort, () =>
        startAdminServer({
          port: config.adminPort,
          hostname,
          readiness,
          metrics: config.metricsEnabled ? () => registry.render() : undefined,
        }),
      )
    }
  } catch (error) {
    processMetrics.stop()
    throw error
  }
  const pool = createUpstreamPool({ settings: config.shadow.httpClient, metrics: metrics.client })
  /** Undoes the above when startup fails half-way. */
  const abandon = async (error: unknown): Promise<never> => {
    processMetrics.stop()
    pool.close()
    await admin?.stop()
    throw error
  }

  let wiring: {
    settings: ShadowSettings
    sink: CaptureSink | undefined
    breaker: CircuitBreaker | undefined
    /** The reporter's rate-limited warnings, written out at shutdown. */
    flushWarnings?: () => void
  }
  try {
    wiring =
      config.mode.kind === 'standalone'
        ? {
            settings: {
              ...config.shadow,
              liveUrl: config.mode.liveUrl,
              shadowUrl: config.mode.shadowUrl,
              gate: '',
              diff: config.mode.diff,
              endpoints: config.mode.endpoints,
            },
            sink: undefined,
            breaker: undefined,
          }
        : await apiModeWiring(config, config.mode, { logger, metrics, pool, warningIntervalMs: options.warningIntervalMs })
  } catch (error) {
    return abandon(error)
  }

  const handler = createShadowHandler(wiring.settings, {
    logger,
    metrics,
    pool,
    sink: wiring.sink,
    breaker: wiring.breaker,
    warningIntervalMs: options.warningIntervalMs,
  })
  let listener: Listener
  try {
    listener = listenOr('SVC_APP_PORT', config.port, () => listen(config, hostname, handler, logger, options.reusePort ?? false))
  } catch (error) {
    return abandon(error)
  }
  const { port } = listener
  readiness.markReady()
  logger.info('proxy listening', {
    url: `http://${hostname}:${port}`,
    server: listener.server,
    admin: admin === undefined ? undefined : `http://${hostname}:${admin.port}`,
    mode: config.mode.kind,
    live: withoutPassword(wiring.settings.liveUrl),
    shadow: withoutPassword(wiring.settings.shadowUrl),
    gate: wiring.settings.gate || undefined,
    sampling_rate: wiring.settings.samplingRate,
  })

  let stopping: Promise<void> | undefined
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    admin,
    readiness,
    registry,
    handler,
    breaker: wiring.breaker,
    stop() {
      stopping ??= (async () => {
        readiness.markStopping()
        logger.info('proxy shutting down', { in_flight_comparisons: handler.inFlight })
        await listener.stop(config.writeTimeoutMs)
        // close(): the drain, then the counts of warnings it held back (a
        // flood's tail would otherwise never be said).
        const drained = await handler.close(config.shadow.shadowTimeoutMs)
        wiring.flushWarnings?.()
        logger.info('background comparisons drained', { completed: drained.completed, aborted: drained.aborted })
        pool.close()
        processMetrics.stop()
        await admin?.stop()
      })()
      return stopping
    },
  }
}

/** The proxy's listener on SVC_APP_PORT, whichever server it is. */
interface Listener {
  readonly port: number
  /** What serves the port: the raw server, or Bun.serve (asked for, or in place of the raw server for an `https:` live). */
  readonly server: ProxyServerKind
  /** No new connections; in-flight requests finish within `boundMs`, then the rest are closed. */
  stop(boundMs: number): Promise<void>
}

/**
 * The raw server when asked for and live is `http:` (docs/proxy.md "The
 * raw server"), with Bun.serve behind it on 127.0.0.1 for the requests it
 * leaves; else Bun.serve.
 */
function listen(config: ProxyConfig, hostname: string, handler: ShadowHandler, logger: Logger, reusePort: boolean): Listener {
  const { relay } = handler
  if (config.server === 'raw' && relay === undefined) {
    logger.info('SVC_APP_PROXY_SERVER=raw serves an http: live only: Bun.serve serves this one', { live: withoutPassword(handler.settings.liveUrl) })
  }
  if (config.server !== 'raw' || relay === undefined) {
    const server = serveProxy(config, hostname, config.port, handler, logger, reusePort, (peer) => clientAddressOf(peer?.address))
    return { port: server.port!, server: 'bun', stop: (boundMs) => stopServer(server, boundMs) }
  }
  const raw = serveRaw({
    hostname,
    port: config.port,
    reusePort,
    idleTimeoutSeconds: idleTimeoutSeconds(config),
    relay,
    // A spliced connection's peer is the splice: the client's address is the one it was made for.
    fallback: (addresses) =>
      serveProxy(config, '127.0.0.1', 0, handler, logger, false, (peer) => (peer === null ? undefined : addresses.get(peer.port))),
  })
  return { port: raw.port, server: 'raw', stop: (boundMs) => raw.stop(boundMs) }
}

/** Bun's `idleTimeout`: one inactivity timeout, never below the write timeout (docs/proxy.md "Timeouts"). */
function idleTimeoutSeconds(config: ProxyConfig): number {
  return Math.min(BUN_MAX_SERVER_IDLE_SECONDS, Math.ceil(Math.max(config.idleTimeoutMs, config.writeTimeoutMs) / 1000))
}

/**
 * Bun.serve, every request to the handler; Bun's timeouts per docs/proxy.md "Timeouts".
 * @param clientAddress the client's address for a peer (the raw server's splice maps its own to the client's)
 */
function serveProxy(
  config: ProxyConfig,
  hostname: string,
  port: number,
  handler: ShadowHandler,
  logger: Logger,
  reusePort: boolean,
  clientAddress: (peer: Bun.SocketAddress | null) => string | undefined,
): Bun.Server<undefined> {
  return Bun.serve({
    port,
    hostname,
    reusePort,
    fetch: (request, bunServer) => handler.fetch(request, { clientAddress: clientAddress(bunServer.requestIP(request)) }),
    error(error) {
      // The handler answers its own failures; Bun comes here when it could
      // not send the response the handler gave, before its head went out:
      // live's body broke while Bun still read it whole (a small body cut
      // short, with the copy for the comparison taken by clone()). That is
      // live's failure, answered as one: 502, not a 500 and an error log.
      const failure = toUpstreamError(error, 'live')
      if (failure.kind !== 'error') {
        logger.debug('live response failed before it was sent', { error: failure.message })
        return problemResponse(liveFailureProblem(failure))
      }
      logger.error('proxy request failed unexpectedly', { error })
      return new Response(JSON.stringify({ type: '/errors/internal', title: 'Internal server error', status: 500 }), {
        status: 500,
        headers: { 'content-type': 'application/problem+json' },
      })
    },
    // One inactivity timeout for reading a request, writing a response and
    // idle keep-alive (docs/proxy.md "Timeouts"); never below the write
    // timeout, which is at least the live timeout.
    idleTimeout: idleTimeoutSeconds(config),
    // Bodies above SVC_APP_MAX_BODY_SIZE are still forwarded to live, streamed.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  })
}

/** Lets in-flight requests finish (idle keep-alive connections are closed), then forces the rest. */
async function stopServer(server: Bun.Server<undefined>, boundMs: number): Promise<void> {
  await within(server.stop(false), boundMs, () => undefined)
  await server.stop(true)
}

interface ApiModeDeps {
  readonly logger: Logger
  readonly metrics: ProxyMetrics
  readonly pool: UpstreamPool
  readonly warningIntervalMs: number | undefined
}

/** API mode: the breaker, the API client, the gate fetched at startup, and the reporter. */
async function apiModeWiring(config: ProxyConfig, mode: ApiModeConfig, deps: ApiModeDeps) {
  const { logger, metrics, pool } = deps
  const breaker = new CircuitBreaker(mode.breaker)
  metrics.watchBreaker(breaker)
  breaker.onStateChange((state, previous) => {
    // While open, captures are dropped, counted and logged once, not per
    // request (docs/proxy.md "API mode").
    const attrs = { state, previous, delay_ms: mode.breaker.delayMs }
    if (state === 'open') logger.warn('API circuit breaker open: captures are dropped until the API answers', attrs)
    else logger.info('API circuit breaker state changed', attrs)
  })
  const client = createApiClient({
    upstream: pool.client('api', mode.apiUrl),
    apiKey: mode.apiKey,
    policy: { maxRetries: mode.maxRetries, initialDelayMs: mode.retryDelayMs, deadlineMs: mode.apiTimeoutMs },
    breaker,
  })
  logger.info('fetching gate', { api: withoutPassword(mode.apiUrl), gate: mode.gateId })
  const gate = await fetchGate(client, mode)
  let redaction: Redaction
  try {
    redaction = new Redaction([...config.shadow.redactedFields, ...gate.redactedFields])
  } catch (error) {
    if (error instanceof FieldPathError) {
      throw new ConfigError('SVC_APP_GATE_ID', mode.gateId, `has a redacted field the proxy cannot use (${error.message})`)
    }
    throw error
  }
  logger.info('gate fetched', { gate: gate.id, name: gate.name, live: withoutPassword(gate.liveUrl), shadow: withoutPassword(gate.shadowUrl) })
  const settings: ShadowSettings = {
    ...config.shadow,
    liveUrl: gate.liveUrl,
    shadowUrl: gate.shadowUrl,
    gate: gate.id,
    redactedFields: redaction.fields,
    // Unused: the API diffs with the gate's diff_config.
    diff: DEFAULT_DIFF_CONFIG,
  }
  const warnings = rateLimited(logger, deps.warningIntervalMs ?? 10_000)
  const sink = createApiReporter({
    client,
    gateId: gate.id,
    redactHeaders: (headers) => redaction.headers(headers),
    reported: metrics.reported.labels(gate.id),
    warnings,
  })
  return { settings, sink, breaker, flushWarnings: () => warnings.flush() }
}

/** Variables set for the other mode, which have no effect here: said once at startup. */
function warnIgnoredVariables(config: ProxyConfig, logger: Logger): void {
  for (const variable of config.ignoredVariables) {
    logger.warn('variable ignored in this proxy mode', { variable, mode: config.mode.kind })
  }
}

function clientAddressOf(address: string | undefined): string | undefined {
  return address === undefined ? undefined : plainAddress(address)
}

/**
 * main.ts's entry: load the configuration, start, and shut down gracefully
 * on SIGTERM/SIGINT. With SVC_APP_WORKERS above 1 this process is the
 * primary, and `--worker=<n>` (the primary's own command line) a worker.
 */
export async function startProxy(env: Environment, argv: string[]): Promise<void> {
  const config = loadProxyConfig(env)
  const logger = createLogger({ level: config.logLevel, format: config.logFormat })
  const worker = workerIndexOf(argv)
  if (worker !== undefined) {
    const workerLogger = logger.child({ worker })
    return runWorker(worker, workerLogger, async (link) => {
      const proxy = await createProxy(config, { logger: workerLogger, admin: false, reusePort: true, warnIgnored: false })
      link.provideSnapshot(() => proxy.registry.snapshot())
      return proxy
    })
  }
  warnUnknownVariables(env, logger)
  if (config.workers > 1) {
    warnIgnoredVariables(config, logger)
    return startProxyPrimary(config, logger)
  }
  let proxy: RunningProxy | undefined
  let signalled = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn('second signal: exiting now', { signal })
      process.exit(1)
    }
    signalled = true
    logger.info('signal received', { signal })
    if (proxy === undefined) {
      // Still starting (fetching the gate, say): nothing is in flight yet.
      logger.info('stopped during startup')
      process.exit(0)
    }
    proxy.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error })
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  proxy = await createProxy(config, { logger })
}
