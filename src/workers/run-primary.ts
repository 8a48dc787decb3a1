/**
 * The primary process of SVC_APP_WORKERS above 1 (docs/proxy.md "Workers"):
 * it serves no traffic itself; it starts the workers, which share the
 * component's port through SO_REUSEPORT, restarts one that dies, merges
 * their metrics, and on SIGTERM or SIGINT lets every worker drain, then
 * exits 0. A worker that fails before it ever served stops the startup
 * (exit 1), as a single process would.
 */
import { resolve } from 'node:path'
import type { Logger } from '../log/index.ts'
import { mergeSnapshots, registerProcessMetrics, Registry, renderSnapshot } from '../metrics/index.ts'
import { WORKER_FLAG, type ClusterState } from './ipc-messages.ts'
import { startSupervisor, type Supervisor } from './worker-supervisor.ts'

const MAIN = resolve(import.meta.dir, '../main.ts')

export interface PrimaryOptions {
  readonly component: 'api' | 'proxy'
  readonly workers: number
  readonly logger: Logger
  /** How long the workers' drains may take together before the primary kills them. */
  readonly drainBoundMs: number
  /** Said in the primary's startup records (the addresses served). */
  readonly attributes?: Readonly<Record<string, unknown>>
  /** Runs once the workers have exited, before the primary does (the proxy's admin server closes). */
  readonly beforeExit?: () => Promise<void>
}

export interface Primary {
  readonly supervisor: Supervisor
  readonly state: ClusterState
  /** The exposition over every worker and the primary itself, merged (docs/metrics.md "Several workers"). */
  metricsText(): Promise<string>
}

export function runPrimary(options: PrimaryOptions): Primary {
  const { logger } = options
  const registry = new Registry({
    onCollectError: (error, metric) => logger.warn('metric collection failed', { metric: metric ?? '', error }),
  })
  const processMetrics = registerProcessMetrics(registry)
  const restarts = registry.counter({
    name: 'svc_worker_restarts_total',
    help: 'Worker processes the primary restarted after they died (SVC_APP_WORKERS above 1).',
  })
  const metricsText = async () => renderSnapshot(mergeSnapshots([registry.snapshot(), ...(await supervisor.snapshots())]))
  logger.info('starting workers', { workers: options.workers, component: options.component, ...options.attributes })
  const supervisor = startSupervisor({
    count: options.workers,
    command: (index) => [process.execPath, MAIN, options.component, `${WORKER_FLAG}=${index}`],
    logger,
    metricsText,
    onRestart: () => restarts.inc(),
    drainBoundMs: options.drainBoundMs,
  })

  const exit = async (code: number) => {
    processMetrics.stop()
    await options.beforeExit?.().catch((error: unknown) => logger.error('shutdown failed', { error }))
    process.exit(code)
  }
  let signalled = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn('second signal: exiting now', { signal })
      supervisor.kill()
      process.exit(1)
    }
    signalled = true
    logger.info('signal received', { signal, workers: options.workers })
    void supervisor.stop().then((clean) => {
      logger.info('workers stopped', { clean })
      return exit(clean ? 0 : 1)
    })
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  supervisor.started.then(
    () => logger.info('workers ready', { workers: options.workers, pids: supervisor.pids.join(','), ...options.attributes }),
    (error: unknown) => {
      if (signalled) return
      // One line and exit 1, as a single process that cannot start; the worker said why.
      logger.error('startup failed: a worker exited before it served', { error })
      signalled = true
      void supervisor.stop().then(() => exit(1))
    },
  )

  return {
    supervisor,
    get state() {
      return supervisor.state
    },
    metricsText,
  }
}
