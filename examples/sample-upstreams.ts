/**
 * Two small services to shadow: the demo's product catalog as live on
 * 127.0.0.1:9001 and a candidate build of it as shadow on 127.0.0.1:9002
 * (a renamed field, prices off by a little, a reordered array, an
 * occasional 500: see src/demo/sample-service.ts). examples/svc_gate.conf
 * points at them.
 *
 *   bun run examples/sample-upstreams.ts [live port] [shadow port]
 */
import { startSampleService } from '../src/demo/sample-service.ts'

const live = startSampleService('live', Number(Bun.argv[2] ?? 9001))
const shadow = startSampleService('shadow', Number(Bun.argv[3] ?? 9002))
console.log(
  `live ${live.url}, shadow ${shadow.url}: GET /api/products, /api/products/:id, /api/search?q=, /api/recommendations`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void Promise.all([live.stop(), shadow.stop()]).then(() => process.exit(0))
  })
}
