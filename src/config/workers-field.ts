import { availableParallelism } from 'node:os'
import { type } from 'arktype'
import { ConfigError } from './config-error.ts'

/** The most worker processes SVC_APP_WORKERS may ask for: far above any core count this runs on. */
export const MAX_WORKERS = 256

const WORKERS_RULE = `auto or an integer from 1 to ${MAX_WORKERS}`

/** SVC_APP_WORKERS as written: `auto`, or a count (docs/proxy.md "Workers"). */
export const workersField = type('string').pipe((text, ctx) => {
  const value = text.trim()
  if (value === 'auto') return 'auto' as const
  const n = /^\+?\d+$/.test(value) ? Number(value) : NaN
  return Number.isSafeInteger(n) && n >= 1 && n <= MAX_WORKERS ? n : ctx.error(WORKERS_RULE)
})

export interface WorkerHost {
  /** The cores this process may run on (its scheduler affinity). */
  readonly cores: number
  /** `process.platform`. */
  readonly platform: string
}

/** This process's host, as `auto` and the SO_REUSEPORT check read it. */
export function currentHost(): WorkerHost {
  return { cores: availableParallelism(), platform: process.platform }
}

/**
 * The number of worker processes: `auto` is the cores the process may use
 * (`os.availableParallelism()`, which in Bun follows `taskset`/cpuset
 * affinity and a cgroup CPU quota, floored: 1 under `--cpus=1.5`; a test
 * holds it to that, docs/proxy.md "Workers"). Several workers share one
 * port through SO_REUSEPORT, which spreads connections over the processes
 * on Linux only; elsewhere more than one is refused with one line.
 */
export function resolveWorkers(value: number | 'auto', written: string | undefined, host: WorkerHost): number {
  const workers = value === 'auto' ? Math.max(1, Math.min(MAX_WORKERS, host.cores)) : value
  if (workers > 1 && host.platform !== 'linux') {
    throw new ConfigError(
      'SVC_APP_WORKERS',
      written?.trim() ?? String(value),
      `must be 1 on ${host.platform}${value === 'auto' ? ` (auto is ${workers} here)` : ''}: several workers share one port through SO_REUSEPORT, which spreads connections over processes on Linux only`,
    )
  }
  return workers
}
