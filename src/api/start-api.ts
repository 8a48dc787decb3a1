import { loadApiConfig, type ApiConfig } from '../config/api-config.ts'
import type { Environment } from '../config/environment.ts'
import { createLogger, type Logger } from '../log/index.ts'
import { createComparisonMetrics, createHttpServerMetrics, createNoiseCheckMetrics, registerProcessMetrics, Registry } from '../metrics/index.ts'
import { openDatabase, type Database } from '../store/database.ts'
import { createGateStore } from '../store/gate-store.ts'
import { createInsightsStore } from '../store/insights-store.ts'
import { createSuggestionsStore } from '../store/suggestions-store.ts'
import { PreviewGuard } from '../rediff/preview-guard.ts'
import { RediffJobs } from '../rediff/rediff-jobs.ts'
import { createRequestExporter } from '../store/request-export.ts'
import { createRequestStore } from '../store/request-store.ts'
import { createStatsStore } from '../store/stats-store.ts'
import type { ApiContext } from './api-context.ts'
import { startCleanupJob } from './cleanup-job.ts'
import { createApiApp } from './create-api-app.ts'
import { GateSettingsCache } from './gate-settings-cache.ts'
import { CAPTURES_PER_CONNECTION, IngestBacklog } from './ingest-backlog.ts'
import { createHttpHandler } from './http-handler.ts'
import { captureRequestLimit, isCaptureRoute } from './capture-limits.ts'
import { apiBearerCheck } from './plugins/auth.ts'
import { registerPoolMetrics } from './pool-metrics.ts'
import { boundAddress, listenOr } from '../net/listen.ts'
import { SchemaReadiness } from './schema-readiness.ts'
import { readinessOf } from './readiness.ts'
import { warnUnknownVariables } from '../config/known-variables.ts'
import { workerIndexOf } from '../workers/ipc-messages.ts'
import { runWorker } from '../workers/run-worker.ts'
import type { WorkerLink } from '../workers/worker-link.ts'
import { startApiPrimary } from './api-primary.ts'

export interface RunningApi {
  readonly url: string
  readonly port: number
  readonly context: ApiContext
  /** Readiness 503, stop accepting, let in-flight requests finish, close the pool. */
  stop(): Promise<void>
}

export interface CreateApiOptions {
  readonly logger?: Logger
  /** An already open (and migrated) database, which then stays open on stop(). */
  readonly database?: Database
  /** Interface to listen on. @default '0.0.0.0' */
  readonly hostname?: string
  /** One of several workers: its link to the primary, and SVC_APP_PORT shared (SO_REUSEPORT). */
  readonly workers?: WorkerLink
  /** Run the retention cleanup job here; of several workers only the first does. @default true */
  readonly cleanup?: boolean
}

/** Starts the API from a validated configuration; used by main.ts, the demo and the tests. */
export async function createApi(
  config: ApiConfig,
  options: CreateApiOptions = {},
): Promise<RunningApi> {
  const logger = options.logger ?? createLogger({ level: config.logLevel, format: config.logFormat })
  const database = options.database
  const registry = new Registry({ onCollectError: (error, name) => logger.warn('metric collection failed', { metric: name ?? '', error: String(error) }) })
  const processMetrics = registerProcessMetrics(registry)
  const http = createHttpServerMetrics(registry, { withRoute: true })
  const comparisons = createComparisonMetrics(registry)

  const db =
    database ??
    (await openDatabase(config.databaseUrl, {
      max: config.database.maxConns,
      min: config.database.minConns,
      idleTimeoutMs: config.database.maxConnIdleMs,
      maxLifetimeMs: config.database.maxConnLifeMs,
    }))
  registerPoolMetrics(registry, db)

  const gates = createGateStore(db.sql)
  const context: ApiContext = {
    config,
    logger,
    db,
    gates,
    gateSettings: new GateSettingsCache(gates),
    ingestBacklog: new IngestBacklog(config.database.maxConns * CAPTURES_PER_CONNECTION),
    requests: createRequestStore(db.sql, {
      durableCaptures: config.database.durableCaptures,
      insights: {
        onCapReached: ({ gateId, what }) =>
          logger.warn(`the gate has reached its ${what} cap; new ${what}s count as (other) (docs/insights.md "Endpoints", "Signatures")`, { gate: gateId }),
      },
    }),
    insights: createInsightsStore(db.sql),
    suggestions: createSuggestionsStore(db.sql),
    previews: new PreviewGuard(db.sql),
    jobs: new RediffJobs({ sql: db.sql, logger }),
    exports: createRequestExporter(db.sql),
    stats: createStatsStore(db.sql),
    registry,
    comparisons,
    noiseChecks: createNoiseCheckMetrics(registry),
    schema: new SchemaReadiness(db.sql),
    lifecycle: { accepting: true },
    workers: options.workers,
  }
  const app = createApiApp(context)
  const fetch = createHttpHandler({
    handle: (request) => app.handle(request),
    logger,
    bodyLimit: (method, path) => (isCaptureRoute(method, path) ? captureRequestLimit(config.maxBodyBytes) : config.maxBodyBytes),
    authorized: apiBearerCheck(config),
    hstsMaxAgeSeconds: config.hstsMaxAgeSeconds,
    corsOrigins: config.corsOrigins,
    observe: (method, status, route, seconds) => http.observe(method, status, seconds, route),
  })
  const server = listenOr('SVC_APP_PORT', config.port, () =>
    Bun.serve({
      port: config.port,
      hostname: options.hostname ?? '0.0.0.0',
      reusePort: options.workers !== undefined,
      fetch,
      // Bun has one inactivity timeout (at most 255 s) for reading a request
      // and for idle keep-alive connections; see README "Decisions", timeouts.
      idleTimeout: Math.min(255, Math.ceil(config.idleTimeoutMs / 1000)),
      // The limit is enforced in http-handler.ts so that it answers a 413
      // problem; Bun's own cap would answer with an empty body.
      maxRequestBodySize: 2 ** 40,
      development: false,
    }),
  )
  const cleanup = options.cleanup === false ? undefined : startCleanupJob({ sql: db.sql, config, logger })
  context.jobs.start()
  const url = `http://127.0.0.1:${server.port}`
  void reportDatabaseState(context)
  logger.info('api listening', {
    url,
    address: boundAddress(server),
    database: db.kind,
    'metrics.enabled': config.metricsEnabled,
  })

  return {
    url,
    port: server.port!,
    context,
    async stop() {
      context.lifecycle.accepting = false
      cleanup?.stop()
      // Running re-diffs finish their chunk and are handed back, for the next start (or a replica) to resume.
      await context.jobs.stop()
      processMetrics.stop()
      await server.stop(false)
      if (!database) await db.close()
      logger.info('api stopped')
    },
  }
}

/**
 * Says at startup what readiness would say later: a database that is not
 * reachable yet, or not migrated, is otherwise first noticed as failing
 * queries. Not awaited: the API starts anyway (the database may come up,
 * or be migrated by a job, after it) and readiness answers 503 until then.
 */
async function reportDatabaseState(context: ApiContext): Promise<void> {
  const { db, logger } = context
  // About the database only: not about the other workers, still starting.
  const state = await readinessOf({ ...context, workers: undefined }, 2000)
  if (state.ready || state.reason === 'shutting down' || state.reason === 'workers starting') return
  if (state.reason === 'database unreachable') {
    logger.warn('database not reachable yet: /health/ready answers 503 until it is', { database: db.kind })
  } else {
    logger.error(`database not ready (${state.detail}); /health/ready answers 503 until then`, { database: db.kind })
  }
}

/**
 * `bun run api`: runs until SIGTERM or SIGINT, then shuts down gracefully
 * and exits 0. With SVC_APP_WORKERS above 1 this process is the primary,
 * and `--worker=<n>` (the primary's own command line) a worker.
 */
export async function startApi(env: Environment, argv: string[] = []): Promise<void> {
  const config = loadApiConfig(env)
  const worker = workerIndexOf(argv)
  if (worker !== undefined) {
    const logger = createLogger({ level: config.logLevel, format: config.logFormat }).child({ worker })
    return runWorker(worker, logger, (link) => createApi(config, { logger, workers: link, cleanup: worker === 0 }))
  }
  if (config.workers > 1) {
    const logger = createLogger({ level: config.logLevel, format: config.logFormat })
    warnUnknownVariables(env, logger)
    return startApiPrimary(config, logger)
  }
  const api = await createApi(config)
  warnUnknownVariables(env, api.context.logger)
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    api.context.logger.info('shutting down', { signal })
    await api.stop()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}
