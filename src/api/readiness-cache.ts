import type { ApiContext } from './api-context.ts'
import { readinessOf, readinessWithoutQuery, type ReadinessState } from './readiness.ts'

export interface ReadinessCacheOptions {
  /** How long the database's answer is reused, counted from when it came. @default 1000 */
  readonly ttlMs?: number
  /** How long one check waits for the database. */
  readonly timeoutMs: number
  readonly now?: () => number
}

/**
 * `/health/ready` is unauthenticated and not rate limited, and each check
 * runs queries: reused for a second, a flood of probes costs the database
 * one check per second, and concurrent probes share the one in progress.
 * Both answers are reused, 200 and 503; shutdown is not: it needs no query
 * and must turn the answer to 503 at once (README "Decisions", readiness).
 */
export function readinessCache(ctx: Pick<ApiContext, 'lifecycle' | 'workers' | 'db' | 'schema'>, options: ReadinessCacheOptions) {
  const ttlMs = options.ttlMs ?? 1000
  const now = options.now ?? (() => performance.now())
  let current: Promise<ReadinessState> | undefined
  let answeredAt = Number.NEGATIVE_INFINITY

  return function readiness(): Promise<ReadinessState> {
    const early = readinessWithoutQuery(ctx)
    if (early !== undefined) return Promise.resolve(early)
    if (current && (answeredAt === Number.POSITIVE_INFINITY || now() - answeredAt < ttlMs)) return current
    const check = readinessOf(ctx, options.timeoutMs)
    current = check
    answeredAt = Number.POSITIVE_INFINITY
    const answered = () => {
      if (current === check) answeredAt = now()
    }
    void check.then(answered, answered)
    return check
  }
}
