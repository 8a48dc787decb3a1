/**
 * Objects per request of the proxy as it runs by default (the raw server,
 * shadowing every request), counted by type: the JavaScript heap's counts
 * (`bun:jsc` `heapStats()`) before and after a number of requests, with
 * no collection asked for in between; the proxy in this process, its
 * upstreams (`fleet.ts`) and its client in others, so that only the
 * proxy's objects are counted. The same figure on any machine, however
 * busy: what `pipeline-cpu.ts`'s census is for the Bun.serve path, for
 * the raw server's whole data path, sockets included.
 *
 *   bun run test/bench/proxy-bench/raw-census.ts [requests=1000] [same|tenth|every]
 *
 * `RAW_CENSUS_RATE=0` counts the proxy without shadowing;
 * `RAW_CENSUS_SHADOW_URL=http://127.0.0.1:9` (a port nothing listens on)
 * with a shadow that is down, every request then in its refusal window.
 *
 * A collection that runs anyway during the count makes it low: the
 * line says how many collections ran, and a count with any is not
 * to be trusted.
 */
import { heapStats } from 'bun:jsc'
import { loadProxyConfig } from '../../../src/config/proxy-config.ts'
import { createLogger } from '../../../src/log/index.ts'
import { createProxy } from '../../../src/proxy/start-proxy.ts'
import { SHADOW_VARIANTS, type ShadowVariant } from './fleet.ts'
import { freePort, OUR_PROXY_ENV, startFleet, stop, waitForHttp } from './processes.ts'

const requests = Number(process.argv[2] ?? 1000)
const variant = (process.argv[3] ?? 'same') as ShadowVariant
if (!SHADOW_VARIANTS.includes(variant)) throw new Error(`the shadow must be one of ${SHADOW_VARIANTS.join(', ')}`)

const [livePort, shadowPort] = [freePort(), freePort()]
const live = startFleet(0, [livePort])
const shadow = startFleet(0, [shadowPort], variant)
await waitForHttp(`http://127.0.0.1:${livePort}/`)
await waitForHttp(`http://127.0.0.1:${shadowPort}/`)
const config = {
  ...loadProxyConfig({
    ...OUR_PROXY_ENV,
    SVC_APP_LIVE_URL: `http://127.0.0.1:${livePort}`,
    SVC_APP_SHADOW_URL: process.env.RAW_CENSUS_SHADOW_URL ?? `http://127.0.0.1:${shadowPort}`,
    SVC_APP_SAMPLING_RATE: process.env.RAW_CENSUS_RATE ?? '1',
  }),
  port: 0,
  adminPort: 0,
}
const proxy = await createProxy(config, { hostname: '127.0.0.1', logger: createLogger({ level: 'warn', format: 'json', write: () => {} }) })

/** `count` requests, one at a time on one keep-alive connection, from a process of their own. */
async function ask(count: number): Promise<void> {
  const script = `const url = ${JSON.stringify(proxy.url + '/')}; for (let i = 0; i < ${count}; i++) await (await fetch(url)).arrayBuffer()`
  const child = Bun.spawn(['bun', '-e', script], { stdout: 'ignore', stderr: 'inherit' })
  if ((await child.exited) !== 0) throw new Error('the client failed')
}

await ask(20_000) // warm-up: the JIT's tiers, the connections
await proxy.handler.drain()
Bun.gc(true)
const before = heapStats()
await ask(requests)
const after = heapStats()
const collections = (after as unknown as { gcCount?: number }).gcCount
const rows = Object.entries(after.objectTypeCounts)
  .map(([type, n]) => [type, (n - (before.objectTypeCounts[type] ?? 0)) / requests] as const)
  .filter(([, perRequest]) => perRequest >= 0.05)
  .sort((a, b) => b[1] - a[1])
for (const [type, perRequest] of rows) console.log(`${perRequest.toFixed(2).padStart(7)}  ${type}`)
console.log(`${rows.reduce((sum, [, n]) => sum + n, 0).toFixed(1)} objects per request, ${variant}, raw server${collections === undefined ? '' : `, ${collections} collections`}`)
await proxy.stop()
await stop(live)
await stop(shadow)
