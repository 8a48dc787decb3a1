/**
 * The primary's hold on its workers (docs/proxy.md "Workers"): it starts
 * them, restarts one that dies, gathers their metrics snapshots, tells them
 * the cluster's state, and stops them all on shutdown.
 */
import type { Logger } from '../log/index.ts'
import { monotonicPart, mergeSnapshots, type MetricsSnapshot } from '../metrics/index.ts'
import { hasKind, type ClusterState, type ToPrimary, type ToWorker } from './ipc-messages.ts'
import { restartDelay } from './restart-delay.ts'
import { acceptedServerRuntimeEnv, SERVER_RUNTIME_ENV, serverRuntimeEnvironment } from './server-runtime.ts'

export interface SupervisorOptions {
  readonly count: number
  /** The command line that starts worker `index`. */
  readonly command: (index: number) => string[]
  readonly logger: Logger
  /** Answers a worker's request for the exposition merged over every worker (the API's `/metrics`). */
  readonly metricsText?: () => Promise<string>
  /** Told at each restart (the primary counts them). */
  readonly onRestart?: () => void
  /** How long a worker may take to answer a snapshot request before its last one is used. @default 3000 */
  readonly snapshotTimeoutMs?: number
  /** How long stop() waits for the workers' own drains before it kills those left. */
  readonly drainBoundMs: number
}

export interface Supervisor {
  readonly state: ClusterState
  /** The process ids of the workers running now, by index. */
  readonly pids: ReadonlyArray<number | undefined>
  /** Resolves once every worker serves; rejects when one exits before it served (startup fails). */
  readonly started: Promise<void>
  /**
   * Every running worker's snapshot (a worker that does not answer in time
   * gives its last one), plus what workers that have gone had counted.
   */
  snapshots(): Promise<MetricsSnapshot[]>
  /** SIGTERM to every worker, each drains; resolves true when every one exited 0. */
  stop(): Promise<boolean>
  /** SIGKILL to every worker (a second signal). */
  kill(): void
}

interface Worker {
  readonly index: number
  process: Bun.Subprocess | undefined
  spawnedAt: number
  serving: boolean
  lastDelayMs: number
  lastSnapshot: MetricsSnapshot | undefined
  restartTimer: ReturnType<typeof setTimeout> | undefined
}

export function startSupervisor(options: SupervisorOptions): Supervisor {
  const { logger } = options
  const snapshotTimeoutMs = options.snapshotTimeoutMs ?? 3000
  const workers: Worker[] = Array.from({ length: options.count }, (_, index) => ({
    index,
    process: undefined,
    spawnedAt: 0,
    serving: false,
    lastDelayMs: 0,
    lastSnapshot: undefined,
    restartTimer: undefined,
  }))
  let state: ClusterState = 'starting'
  let retired: MetricsSnapshot = { families: [] }
  let nextId = 0
  const pending = new Map<number, Map<Worker, (snapshot: MetricsSnapshot | undefined) => void>>()
  const settleStart = Promise.withResolvers<void>()
  const started = settleStart.promise
  started.catch(() => undefined)

  const send = (worker: Worker, message: ToWorker) => {
    try {
      worker.process?.send(message)
    } catch {
      // Exiting: its exit is handled in onExit.
    }
  }
  let servedOnce = false
  /** Ready once every worker has served, then while any one does (the others restarting); stopping is final. */
  const updateState = () => {
    if (state === 'stopping') return
    if (!servedOnce && workers.every((w) => w.serving)) {
      servedOnce = true
      settleStart.resolve()
    }
    const next: ClusterState = servedOnce && workers.some((w) => w.serving) ? 'ready' : 'starting'
    if (next === state) return
    state = next
    for (const worker of workers) send(worker, { kind: 'cluster', state })
  }

  const onMessage = (worker: Worker, message: ToPrimary) => {
    switch (message.kind) {
      case 'ready':
        worker.serving = true
        logger.info('worker ready', { worker: worker.index, pid: worker.process?.pid })
        send(worker, { kind: 'cluster', state })
        updateState()
        return
      case 'snapshot':
        worker.lastSnapshot = message.snapshot
        pending.get(message.id)?.get(worker)?.(message.snapshot)
        return
      case 'metrics':
        void (options.metricsText?.() ?? Promise.resolve(undefined)).then(
          (text) => send(worker, { kind: 'metrics', id: message.id, text }),
          () => send(worker, { kind: 'metrics', id: message.id, text: undefined }),
        )
        return
    }
  }

  const onExit = (worker: Worker, child: Bun.Subprocess, code: number | null, signal: number | string | null) => {
    if (worker.process !== child) return
    worker.process = undefined
    const wasServing = worker.serving
    worker.serving = false
    // What it had counted, as last seen, stays in the totals: they never go down.
    if (worker.lastSnapshot !== undefined) retired = mergeSnapshots([retired, monotonicPart(worker.lastSnapshot)])
    worker.lastSnapshot = undefined
    for (const waiting of pending.values()) waiting.get(worker)?.(undefined)
    if (state === 'stopping') return
    const attrs = { worker: worker.index, pid: child.pid, exit_code: code ?? undefined, signal: signal ?? undefined }
    if (!servedOnce && !wasServing) {
      logger.error('worker failed to start', attrs)
      settleStart.reject(new Error(`worker ${worker.index} exited before it served (exit code ${code ?? signal})`))
      return
    }
    const delayMs = restartDelay(performance.now() - worker.spawnedAt, worker.lastDelayMs)
    worker.lastDelayMs = delayMs
    logger.warn('worker exited; restarting it', { ...attrs, restart_in_ms: delayMs })
    options.onRestart?.()
    updateState()
    worker.restartTimer = setTimeout(() => {
      worker.restartTimer = undefined
      if (state !== 'stopping') spawn(worker)
    }, delayMs)
  }

  // Asked once, before the first worker starts: an option this Bun does not know would stop every worker.
  const runtimeSettings = acceptedServerRuntimeEnv()
  if (Object.keys(runtimeSettings).length === 0) {
    logger.warn('this Bun does not take the server runtime settings; workers start without them', { settings: Object.keys(SERVER_RUNTIME_ENV).join(',') })
  }
  const workerEnv = serverRuntimeEnvironment(process.env, runtimeSettings)

  const spawn = (worker: Worker) => {
    const child: Bun.Subprocess = Bun.spawn(options.command(worker.index), {
      env: workerEnv,
      stdio: ['ignore', 'inherit', 'inherit'],
      serialization: 'advanced',
      ipc: (message) => {
        if (hasKind(message)) onMessage(worker, message as ToPrimary)
      },
      onExit: (_child, code, signal) => onExit(worker, child, code, signal),
    })
    worker.process = child
    worker.spawnedAt = performance.now()
    logger.info('worker started', { worker: worker.index, pid: child.pid })
  }

  const collect = (worker: Worker, id: number): Promise<MetricsSnapshot | undefined> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        logger.warn('worker metrics not collected in time; its last ones are used', { worker: worker.index, pid: worker.process?.pid })
        finish(worker.lastSnapshot)
      }, snapshotTimeoutMs)
      const finish = (snapshot: MetricsSnapshot | undefined) => {
        clearTimeout(timer)
        pending.get(id)?.delete(worker)
        resolve(snapshot)
      }
      pending.get(id)!.set(worker, finish)
      send(worker, { kind: 'snapshot', id })
    })

  for (const worker of workers) spawn(worker)

  return {
    get state() {
      return state
    },
    get pids() {
      return workers.map((w) => w.process?.pid)
    },
    started,
    async snapshots() {
      const id = nextId++
      pending.set(id, new Map())
      const asked = workers.filter((w) => w.serving).map((worker) => ({ worker, child: worker.process }))
      const answers = await Promise.all(asked.map(({ worker }) => collect(worker, id)))
      pending.delete(id)
      // A worker that died meanwhile is in `retired` already, with what it answered: not twice.
      const live = answers.filter((snapshot, i) => snapshot !== undefined && asked[i]!.worker.process === asked[i]!.child)
      return [retired, ...(live as MetricsSnapshot[])]
    },
    async stop() {
      state = 'stopping'
      for (const worker of workers) send(worker, { kind: 'cluster', state })
      settleStart.reject(new Error('stopped during startup'))
      const running: Array<Promise<number>> = []
      for (const worker of workers) {
        clearTimeout(worker.restartTimer)
        const child = worker.process
        if (child === undefined) continue
        // Killed by this very SIGTERM: a worker still loading, before it
        // could take the signal as a drain, had nothing to drain. A stop
        // during a rollout's startup is not a failure.
        running.push(child.exited.then((code) => (child.signalCode === 'SIGTERM' ? 0 : code)))
        child.kill('SIGTERM')
      }
      const bound = setTimeout(() => {
        logger.warn('workers still draining at the shutdown bound: killing them', { bound_ms: options.drainBoundMs })
        for (const worker of workers) worker.process?.kill('SIGKILL')
      }, options.drainBoundMs)
      const codes = await Promise.all(running)
      clearTimeout(bound)
      return codes.every((code) => code === 0)
    },
    kill() {
      for (const worker of workers) worker.process?.kill('SIGKILL')
    },
  }
}
