import { Elysia } from 'elysia'
import { type } from 'arktype'
import type { ApiContext } from '../api-context.ts'
import { noQuery } from '../query-string.ts'
import { config, globalStats, problems } from '../schemas/common.ts'

const errors = problems(401, 429, 500)

/** getConfig and getGlobalStats (docs/reference/api.md "Operations"). */
export function configRoutes(ctx: ApiContext) {
  return new Elysia({ name: 'config-routes' })
    .get('/config', () => ({ data: { retention: ctx.config.retention } }), {
      ...noQuery,
      response: { 200: type({ data: config }), ...errors },
      detail: { operationId: 'getConfig', summary: 'The global retention floor', tags: ['Config'] },
    })
    .get('/stats', async () => ({ data: await ctx.stats.globalStats() }), {
      ...noQuery,
      response: { 200: type({ data: globalStats }), ...errors },
      detail: { operationId: 'getGlobalStats', summary: 'Totals over all gates in the last 24 hours', tags: ['Config'] },
    })
}
