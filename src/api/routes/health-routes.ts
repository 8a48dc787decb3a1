import { Elysia } from 'elysia'
import { PROMETHEUS_CONTENT_TYPE } from '../../metrics/index.ts'
import type { ApiContext } from '../api-context.ts'
import { readinessBody } from '../readiness.ts'
import { readinessCache } from '../readiness-cache.ts'

/** How long readiness waits for the database before saying 503. */
const READY_QUERY_TIMEOUT_MS = 1000

/** SPEC.md "Infrastructure (unauthenticated)". */
export function healthRoutes(ctx: ApiContext) {
  const readiness = readinessCache(ctx, { timeoutMs: READY_QUERY_TIMEOUT_MS })
  const app = new Elysia({ name: 'health-routes' })
    .get('/health/live', () => ({ status: 'ok' }), { detail: { hide: true } })
    .get(
      '/health/ready',
      async () => {
        const state = await readiness()
        return Response.json(readinessBody(state), { status: state.ready ? 200 : 503 })
      },
      { detail: { hide: true } },
    )
  if (!ctx.config.metricsEnabled) return app
  return app.get(
    '/metrics',
    () => new Response(ctx.registry.render(), { headers: { 'content-type': PROMETHEUS_CONTENT_TYPE } }),
    { detail: { hide: true } },
  )
}
