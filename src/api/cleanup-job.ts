import type { Sql } from 'postgres'
import type { ApiConfig } from '../config/api-config.ts'
import type { Logger } from '../log/index.ts'
import { runCleanup } from '../store/cleanup.ts'

export interface CleanupJobOptions {
  readonly sql: Sql
  readonly config: Pick<ApiConfig, 'retentionMs' | 'cleanupIntervalMs'>
  readonly logger: Logger
  /** Rows deleted per statement, so one run never holds long locks. @default 5000 */
  readonly batchSize?: number
}

/**
 * Runs the retention cleanup every SVC_APP_CLEANUP_INTERVAL, first shortly
 * after startup. Runs never overlap; across replicas the advisory lock in
 * runCleanup lets one clean at a time.
 */
export function startCleanupJob(options: CleanupJobOptions): { stop(): void; runNow(): Promise<number> } {
  let running: Promise<number> | undefined
  const runOnce = async (): Promise<number> => {
    try {
      const deleted = await runCleanup(options.sql, {
        floorMs: options.config.retentionMs,
        batchSize: options.batchSize ?? 5000,
        onGateError: (gateId, error) => options.logger.error('retention cleanup failed for a gate; the others are still cleaned', { gate: gateId, error }),
      })
      if (deleted > 0) options.logger.info('retention cleanup', { deleted })
      return deleted
    } catch (error) {
      options.logger.error('retention cleanup failed', { error })
      return 0
    } finally {
      running = undefined
    }
  }
  const runNow = (): Promise<number> => (running ??= runOnce())
  const first = setTimeout(() => void runNow(), 5_000)
  const timer = setInterval(() => void runNow(), options.config.cleanupIntervalMs)
  first.unref()
  timer.unref()
  return {
    stop() {
      clearTimeout(first)
      clearInterval(timer)
    },
    runNow,
  }
}
