import { cors } from '@elysiajs/cors'
import { Elysia } from 'elysia'
import type { ApiContext } from './api-context.ts'
import { CORS_EXPOSED_HEADERS, CORS_HEADERS, CORS_MAX_AGE_SECONDS, CORS_METHODS } from './cors-settings.ts'
import { apiDocs } from './plugins/api-docs.ts'
import { apiBearerCheck, bearerAuth } from './plugins/auth.ts'
import { hostAllowList } from './plugins/host-allow-list.ts'
import { problemHandler } from './plugins/problem-handler.ts'
import { rateLimit } from './plugins/rate-limit.ts'
import { requestFacts } from './request-context.ts'
import { RouteTable } from './route-table.ts'
import { configRoutes } from './routes/config-routes.ts'
import { gateRoutes } from './routes/gate-routes.ts'
import { healthRoutes } from './routes/health-routes.ts'
import { insightRoutes } from './routes/insight-routes.ts'
import { exportRoutes } from './routes/export-routes.ts'
import { jobRoutes } from './routes/job-routes.ts'
import { previewRoutes } from './routes/preview-routes.ts'
import { requestRoutes } from './routes/request-routes.ts'
import { suggestionRoutes } from './routes/suggestion-routes.ts'
import { verdictRoutes } from './routes/verdict-routes.ts'

/**
 * The Elysia app: cross-cutting plugins first (problem handler, Host
 * allow-list, CORS, rate limit, auth), then the routes. What must hold for every response, even
 * ones Elysia never makes, lives in http-handler.ts around it.
 */
export function createApiApp(ctx: ApiContext) {
  const routes = new RouteTable()
  let app = new Elysia({ name: 'svc-api' }).use(problemHandler({ logger: ctx.logger, routes, schema: ctx.schema }))
  if (ctx.config.allowedHosts) app = app.use(hostAllowList(ctx.config.allowedHosts))
  if (ctx.config.corsOrigins.length > 0) {
    app = app.use(
      cors({
        origin: [...ctx.config.corsOrigins],
        methods: CORS_METHODS,
        allowedHeaders: CORS_HEADERS,
        exposeHeaders: CORS_EXPOSED_HEADERS,
        maxAge: CORS_MAX_AGE_SECONDS,
        credentials: false,
      }),
    )
  }
  const built = app
    .use(
      rateLimit({
        perMinute: ctx.config.rateLimitPerMinute,
        trustedProxies: ctx.config.trustedProxies,
        exempt: ctx.config.rateLimitExempt,
      }),
    )
    .use(bearerAuth(apiBearerCheck(ctx.config)))
    .onTransform({ as: 'global' }, ({ request, route }) => {
      const facts = requestFacts(request)
      facts.route = route
    })
    .use(apiDocs({ hostChecked: ctx.config.allowedHosts !== undefined }))
    .use(healthRoutes(ctx))
    .use(configRoutes(ctx))
    .use(gateRoutes(ctx))
    .use(exportRoutes(ctx))
    .use(verdictRoutes(ctx))
    .use(requestRoutes(ctx))
    .use(insightRoutes(ctx))
    .use(suggestionRoutes(ctx))
    .use(previewRoutes(ctx))
    .use(jobRoutes(ctx))
  for (const route of built.routes) {
    // The CORS plugin answers OPTIONS on `/` and `/*`: a catch-all, not a
    // route. In the table it would make every unknown path a 405, not a 404.
    if (route.method === 'OPTIONS' && (route.path === '/*' || route.path === '/')) routes.addEverywhere(route.method)
    else routes.add(route.method, route.path)
  }
  return built
}
