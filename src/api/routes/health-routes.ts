import { Elysia } from 'elysia'
import { UnavailableError } from '../../errors/app-error.ts'
import { PROMETHEUS_CONTENT_TYPE } from '../../metrics/index.ts'
import type { ApiContext } from '../api-context.ts'
import { readinessBody } from '../readiness.ts'
import { readinessCache } from '../readiness-cache.ts'
import { registerReadinessMetric } from '../readiness-metric.ts'

/** How long readiness waits for the database before saying 503. */
const READY_QUERY_TIMEOUT_MS = 1000

/** How long a worker's /metrics waits for the primary's merged exposition (each worker's snapshot is bounded below it). */
const MERGED_METRICS_TIMEOUT_MS = 5000

/** The unauthenticated endpoints (docs/reference/api.md "Without a key"). */
export function healthRoutes(ctx: ApiContext) {
  const readiness = readinessCache(ctx, { timeoutMs: READY_QUERY_TIMEOUT_MS })
  const recordReadiness = registerReadinessMetric(ctx.registry, ctx.db.dbName)
  // One of several workers: the primary merges every worker's snapshot, each
  // with svc_database_ready as that worker's own check says now.
  ctx.workers?.provideSnapshot(async () => {
    recordReadiness(await readiness())
    return ctx.registry.snapshot()
  })
  const app = new Elysia({ name: 'health-routes' })
    .get('/health/live', () => ({ status: 'ok' }), { detail: { hide: true } })
    .get(
      '/health/ready',
      async () => {
        const state = await readiness()
        recordReadiness(state)
        return Response.json(readinessBody(state), { status: state.ready ? 200 : 503 })
      },
      { detail: { hide: true } },
    )
  if (!ctx.config.metricsEnabled) return app
  return app.get(
    '/metrics',
    async () => {
      // The same check as /health/ready, through the same cache: a scrape
      // costs the database at most one check per second either way.
      recordReadiness(await readiness())
      // Several workers: a scrape lands on any one, which answers for all (docs/metrics.md "Several workers").
      const text = ctx.workers === undefined ? ctx.registry.render() : await ctx.workers.mergedMetrics(MERGED_METRICS_TIMEOUT_MS)
      if (text === undefined) throw new UnavailableError('the workers\' metrics could not be collected in time; retry', 1)
      return new Response(text, { headers: { 'content-type': PROMETHEUS_CONTENT_TYPE } })
    },
    { detail: { hide: true } },
  )
}
