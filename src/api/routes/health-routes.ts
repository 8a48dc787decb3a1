import { Elysia } from 'elysia'
import { PROMETHEUS_CONTENT_TYPE } from '../../metrics/index.ts'
import type { ApiContext } from '../api-context.ts'

/** How long readiness waits for the database before saying 503. */
const READY_QUERY_TIMEOUT_MS = 1000

/** SPEC.md "Infrastructure (unauthenticated)". */
export function healthRoutes(ctx: ApiContext) {
  const app = new Elysia({ name: 'health-routes' })
    .get('/health/live', () => ({ status: 'ok' }), { detail: { hide: true } })
    .get(
      '/health/ready',
      async () => {
        if (!ctx.lifecycle.accepting) return Response.json({ status: 'shutting down' }, { status: 503 })
        if (!(await ctx.db.ping(READY_QUERY_TIMEOUT_MS))) {
          return Response.json({ status: 'unavailable', database: 'unreachable' }, { status: 503 })
        }
        let schema: string | undefined
        try {
          schema = await ctx.schema.problem()
        } catch {
          return Response.json({ status: 'unavailable', database: 'unreachable' }, { status: 503 })
        }
        if (schema !== undefined) return Response.json({ status: 'unavailable', database: 'connected', schema }, { status: 503 })
        return Response.json({ status: 'ok', database: 'connected' })
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
