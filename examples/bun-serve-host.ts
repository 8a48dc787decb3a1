/**
 * A plain Bun.serve app that shadows its /api/* traffic with the svc_gate
 * module, configured by an object (the same settings as a block; see
 * examples/svc_gate.conf for every directive). `gate.routes` are two Bun
 * routes, `/api` and `/api/*`, for every method; the app's own routes sit
 * next to them.
 *
 *   bun run examples/sample-upstreams.ts          # live :9001, shadow :9002
 *   bun run examples/bun-serve-host.ts [port] [live url] [shadow url]
 *   curl http://127.0.0.1:8000/api/products       # shadowed
 *   curl http://127.0.0.1:8000/metrics            # the module's metrics
 */
import { PROMETHEUS_CONTENT_TYPE, svcGate, type SvcGate } from '../src/module/index.ts'

/** Starts the host: routes of its own, the gate on /api, the gate's metrics. */
export function startServer(gate: SvcGate, port: number) {
  return Bun.serve({
    hostname: '127.0.0.1', // 0.0.0.0 in a container
    port,
    routes: {
      ...gate.routes,
      '/': () => new Response('the host app: everything under /api is shadowed'),
      '/health': () => Response.json({ status: 'ok' }),
      '/orders': { POST: async (request) => Response.json({ received: await request.json() }) },
      // An exact route wins over the gate's /api/*.
      '/api/version': () => Response.json({ version: '1.0.0', served_by: 'host' }),
      '/metrics': () =>
        new Response(gate.metricsText(), { headers: { 'content-type': PROMETHEUS_CONTENT_TYPE } }),
    },
    fetch: () => Response.json({ error: 'not found' }, { status: 404 }),
  })
  // Without `routes`, a fetch-style host asks the gate:
  //   fetch: (request, server) => gate.matches(request) ? gate.fetch(request, server) : app(request)
}

if (import.meta.main) {
  const port = Number(Bun.argv[2] ?? 8000)
  const gate = svcGate(
    {
      live: Bun.argv[3] ?? 'http://127.0.0.1:9001',
      shadow: Bun.argv[4] ?? 'http://127.0.0.1:9002',
      samplingRate: 1,
      shadowTimeout: '10s',
      shadowRules: 'allow POST:/api/search, deny GET:/api/admin/*',
      maxConcurrentCallbacks: 200,
      httpClient: { maxConnsPerHost: 32, maxIdleConnsPerHost: 32 },
      diffIgnoredFields: ['body.generated_at', 'body.request_id'],
      diffFloatTolerance: 0.015,
      redactedFields: ['body.customer.email'],
    },
    { prefix: '/api' },
  )
  const server = startServer(gate, port)
  console.log(`bun-serve host listening on http://127.0.0.1:${server.port}`)

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, async () => {
      await server.stop() // no new connections; the requests in flight finish
      await gate.close() // then the background comparisons drain (at most the shadow timeout)
      process.exit(0)
    })
  }
}
