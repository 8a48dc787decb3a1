/**
 * The pipeline's own CPU per request, without sockets: our handler
 * (`createShadowHandler`, standalone comparison) driven in process with
 * upstreams that answer at once from memory, so that a profile
 * (`bun --cpu-prof`) shows the pipeline's JavaScript and nothing of the
 * network or of Bun's server. Not a proxy figure: `cpu.ts` measures the
 * proxy; this says where, inside the pipeline, its share goes.
 *
 *   bun run test/bench/proxy-bench/pipeline-cpu.ts [requests=200000] [same|tenth|every] [in flight=64]
 *
 * The log is at warn, so a diff writes no record; `PIPELINE_LOG=info`
 * logs as the proxy does by default: each diff a `response diff detected`
 * record on stdout (`> /dev/null` for the record's own cost);
 * `PIPELINE_NOWRITE=1` builds each record but writes none (the write's
 * share of it).
 *
 * With `PIPELINE_CENSUS=1`, it counts instead the objects the JavaScript
 * heap gains per request over 1,000 requests, by type (`bun:jsc`
 * `heapStats()`, with no collection in between): the same figure on any
 * machine, however busy, where CPU figures move by ±10 % from run to run
 * (docs/benchmarks/proxy.md). The test's own Request, Response and body
 * are about 16 of them.
 */
import { DEFAULT_DIFF_CONFIG } from '../../../src/diff/index.ts'
import { createLogger } from '../../../src/log/index.ts'
import { compileShadowRules, createShadowHandler, DEFAULT_HTTP_CLIENT } from '../../../src/proxy/index.ts'
import { shadowClientOf, type ShadowClient, type UpstreamClient, type UpstreamPool } from '../../../src/proxy/upstream/upstream-client.ts'
import { BENCH_BODY, DIFFERENT_BODY } from './fleet.ts'

const requests = Number(process.argv[2] ?? 200_000)
const variant = process.argv[3] === 'every' ? 'every' : process.argv[3] === 'tenth' ? 'tenth' : 'same'
const inFlight = Number(process.argv[4] ?? 64)
const logLevel = process.env.PIPELINE_LOG === 'info' ? 'info' : 'warn'

const liveBody = new TextEncoder().encode(BENCH_BODY)
const shadowBody = new TextEncoder().encode(variant === 'every' ? DIFFERENT_BODY : BENCH_BODY)
const differentBody = new TextEncoder().encode(DIFFERENT_BODY)
let shadowCount = 0
const JSON_TYPE = 'application/json'

const live: UpstreamClient = {
  target: 'live',
  baseUrl: 'http://live.invalid',
  async send() {
    const response = new Response(liveBody, { headers: { 'content-type': JSON_TYPE, 'content-length': String(liveBody.byteLength) } })
    return { response, latencyMs: 0.1, done() {} }
  },
}
const shadow: ShadowClient = shadowClientOf(async () => {
  const body = variant === 'tenth' && ++shadowCount % 10 === 0 ? differentBody : shadowBody
  return { kind: 'complete', status: 200, headers: { 'Content-Type': [JSON_TYPE], 'Content-Length': [String(body.byteLength)] }, body, latencyMs: 0.1 }
})
const pool: UpstreamPool = { client: () => live, shadowClient: () => shadow, liveRelayClient: () => undefined, close() {} }

const handler = createShadowHandler(
  {
    liveUrl: 'http://live.invalid',
    shadowUrl: 'http://shadow.invalid',
    gate: '',
    liveTimeoutMs: 5000,
    shadowTimeoutMs: 10_000,
    maxBodyBytes: 10 * 1024 * 1024,
    samplingRate: 1,
    shadowRules: compileShadowRules(''),
    maxConcurrentCallbacks: 0,
    httpClient: DEFAULT_HTTP_CLIENT,
    redactedFields: [],
    diff: DEFAULT_DIFF_CONFIG,
  },
  // At info, as the proxy runs by default, each diff is a record: written to stdout (send it to /dev/null).
  { logger: createLogger({ level: logLevel, format: 'json', ...(logLevel === 'info' && process.env.PIPELINE_NOWRITE !== '1' ? {} : { write: () => {} }) }), pool },
)

async function one(): Promise<void> {
  const request = new Request('http://127.0.0.1:8080/api/products?page=1', { headers: { host: '127.0.0.1:8080', 'user-agent': 'wrk' } })
  const response = await handler.fetch(request, { clientAddress: '127.0.0.1' })
  await response.bytes()
}

async function run(count: number): Promise<void> {
  let next = 0
  const lane = async () => {
    while (next++ < count) await one()
  }
  await Promise.all(Array.from({ length: inFlight }, lane))
  await handler.drain()
}

await run(20_000) // warm-up: the JIT's tiers
if (process.env.PIPELINE_CENSUS === '1') {
  await census(1000)
  process.exit(0)
}
const cpuBefore = process.cpuUsage()
const started = performance.now()
await run(requests)
const cpu = process.cpuUsage(cpuBefore)
const elapsed = performance.now() - started
console.error(`${requests} requests, ${variant}, log at ${logLevel}: ${((cpu.user + cpu.system) / requests).toFixed(1)} µs CPU per request (${((elapsed * 1000) / requests).toFixed(1)} µs wall)`)

/** Objects per request by type: the heap's counts after `count` requests against before, no collection between. */
async function census(count: number): Promise<void> {
  const { heapStats } = await import('bun:jsc')
  Bun.gc(true)
  const before = heapStats().objectTypeCounts
  await run(count)
  const after = heapStats().objectTypeCounts
  const rows = Object.entries(after)
    .map(([type, n]) => [type, (n - (before[type] ?? 0)) / count] as const)
    .filter(([, perRequest]) => perRequest >= 0.05)
    .sort((a, b) => b[1] - a[1])
  for (const [type, perRequest] of rows) console.log(`${perRequest.toFixed(2).padStart(7)}  ${type}`)
  console.log(`${rows.reduce((sum, [, n]) => sum + n, 0).toFixed(1)} objects per request, ${variant}`)
}
