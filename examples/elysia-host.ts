/**
 * An Elysia app that shadows its /api/* traffic with the svc_gate module,
 * configured by the block in examples/svc_gate.conf. The app keeps its own
 * routes; everything under /api goes to live (whose response the client
 * gets, untouched) and, per the block's rules, to shadow, compared in the
 * background: a difference is logged as `response diff detected`.
 *
 *   bun run examples/sample-upstreams.ts          # live :9001, shadow :9002
 *   bun run examples/elysia-host.ts [port] [svc_gate.conf]
 *   curl http://127.0.0.1:8000/api/products       # shadowed
 *   curl http://127.0.0.1:8000/metrics            # the module's metrics
 */
import { Elysia } from 'elysia'
import { PROMETHEUS_CONTENT_TYPE, svcGate, type SvcGate } from '../src/module/index.ts'

/** The host app: routes of its own, the gate on /api, the gate's metrics. */
export function createApp(gate: SvcGate) {
  return (
    new Elysia()
      .get('/', () => 'the host app: everything under /api is shadowed')
      .get('/health', () => ({ status: 'ok' }))
      // The host's own routes parse their bodies as usual; the gate's routes never do.
      .post('/orders', ({ body }) => ({ received: body }))
      // A route the host declares under the prefix wins over the gate's.
      .get('/api/version', () => ({ version: '1.0.0', served_by: 'host' }))
      .get(
        '/metrics',
        () =>
          new Response(gate.metricsText(), {
            headers: { 'content-type': PROMETHEUS_CONTENT_TYPE },
          }),
      )
      // Last, so that the hooks above (none here; an auth guard, say) apply to the gate too.
      .use(gate.plugin)
  )
}

if (import.meta.main) {
  const port = Number(Bun.argv[2] ?? 8000)
  const configFile = Bun.argv[3] ?? new URL('./svc_gate.conf', import.meta.url).pathname
  // A bad block stops here, naming its line and column.
  const gate = svcGate(await Bun.file(configFile).text(), { prefix: '/api' })
  // 127.0.0.1 for a local try; 0.0.0.0 in a container.
  const app = createApp(gate).listen({ hostname: '127.0.0.1', port })
  console.log(`elysia host listening on http://127.0.0.1:${app.server!.port}`)

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, async () => {
      await app.stop() // no new requests; the requests in flight finish
      await gate.close() // then the background comparisons drain (at most shadow_timeout)
      process.exit(0)
    })
  }
}
