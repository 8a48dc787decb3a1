import { Elysia } from 'elysia'
import { PROMETHEUS_CONTENT_TYPE } from '../../metrics/index.ts'
import type { ApiContext } from '../api-context.ts'
import { readinessBody } from '../readiness.ts'
import { readinessCache } from '../readiness-cache.ts'
import { registerReadinessMetric } from '../readiness-metric.ts'

/** How long readiness waits for the database before saying 503. */
const READY_QUERY_TIMEOUT_MS = 1000

/** SPEC.md "Infrastructure (unauthenticated)". */
export function healthRoutes(ctx: ApiContext) {
  const readiness = readinessCache(ctx, { timeoutMs: READY_QUERY_TIMEOUT_MS })
  const recordReadiness = registerReadinessMetric(ctx.registry, ctx.db.dbName)
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
      return new Response(ctx.registry.render(), { headers: { 'content-type': PROMETHEUS_CONTENT_TYPE } })
    },
    { detail: { hide: true } },
  )
}
