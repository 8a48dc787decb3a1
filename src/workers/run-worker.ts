/**
 * One worker process of SVC_APP_WORKERS above 1 (docs/proxy.md "Workers"):
 * the component as a single process would run it, on a port it shares with
 * the other workers, linked to its primary. A signal, or its primary going
 * away, starts the component's own graceful drain; the primary handles a
 * second signal (it kills the workers), so a worker drains once and ignores
 * the rest: Ctrl-C reaches every process of the terminal's group at once.
 */
import { ConfigError } from '../config/config-error.ts'
import type { Logger } from '../log/index.ts'
import { WORKER_FLAG } from './ipc-messages.ts'
import { connectToPrimary, parentChannel, type WorkerLink } from './worker-link.ts'

export interface Stoppable {
  stop(): Promise<void>
}

export async function runWorker(index: number, logger: Logger, start: (link: WorkerLink) => Promise<Stoppable>): Promise<void> {
  const channel = parentChannel()
  if (channel === undefined || !Number.isSafeInteger(index)) {
    throw new ConfigError(WORKER_FLAG, String(index), 'is for the processes a primary starts (SVC_APP_WORKERS above 1), not for running by hand')
  }
  const link = connectToPrimary(index, channel)
  let running: Stoppable | undefined
  let stopping = false
  const stop = (why: string) => {
    if (stopping) return
    stopping = true
    logger.info('worker stopping', { reason: why })
    if (running === undefined) process.exit(0)
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error })
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  link.onPrimaryGone(() => stop('primary gone'))
  running = await start(link)
  link.ready()
}
