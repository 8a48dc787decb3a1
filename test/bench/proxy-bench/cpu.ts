/**
 * CPU per request of the proxy process (with its workers), which background load on a shared
 * machine distorts far less than throughput: `/proc/<pid>/stat` (utime +
 * stime) before and after a wrk run, divided by the requests wrk counted.
 * Each line also splits it: by thread (`js`, the JavaScript thread; `http`,
 * Bun's "HTTP Client" thread that fetch's sockets run on; `other`: GC
 * helpers, the allocator) and kernel time (`sys`); then the upstreams' CPU
 * per request (the fleet processes, both upstreams) and how busy the whole
 * machine was (`/proc/stat`), which tells whether CPU is what bounds the
 * throughput, and how much of its time the hypervisor gave to other
 * guests (`steal`), which tells a noisy round from a slow one.
 *
 *   bun run test/bench/proxy-bench/cpu.ts [seconds=5] [rounds=3] [connections=64]
 *
 * Side by side, interleaved rounds, each on its own upstream ports:
 *   minimal        a minimal Bun fetch pass-through proxy (the floor: Bun's own cost)
 *   ours-none      our proxy (`bun run src/main.ts proxy`), sampling 0
 *   minimal-shadow a minimal shadow-and-compare proxy (two fetches, bytes(), processCapture)
 *   raw-shadow     the same on Bun's raw sockets, without Request/Response objects (raw-shadow.ts)
 *   raw-http1      raw sockets in front, our HTTP/1.1 client to both upstreams (http1-floors.ts)
 *   raw-pipeline   raw sockets, one pinned live connection per client connection, with our pipeline
 *                  (admission, PendingComparison, the diff log sink, metrics): the design's floor (raw-pipeline.ts)
 *   raw-pipeline-none  the same, sampling 0
 *   raw-pipeline-relay the same, live through our pooled HTTP/1.1 client as the raw server asks it (relay-live.ts)
 *   serve-http1    Bun.serve in front, our HTTP/1.1 client to both upstreams (http1-floors.ts)
 *   serve-fetch    Bun.serve in front, fetch to live, our client to the shadow: ours without its pipeline (http1-floors.ts)
 *   ours-shadow    our proxy, shadowing and diffing every request
 *   ours-down      our proxy, shadowing every request to a shadow that refuses connections
 *
 * Child roles (started by this script, stopped by PID):
 *   cpu.ts minimal <port> <live>
 *   cpu.ts minimal-shadow <port> <live> <shadow>
 *   cpu.ts raw-shadow <port> <live> <shadow>
 *   cpu.ts raw-http1 <port> <live> <shadow>
 *   cpu.ts raw-pipeline <port> <live> <shadow> <rate> [pinned|relay]
 *   cpu.ts serve-http1 <port> <live> <shadow>
 *   cpu.ts serve-fetch <port> <live> <shadow>
 *   cpu.ts ours <port> <live> <shadow> <rate> [seconds]   in-process handler, for `bun --cpu-prof`
 *
 * `PROXY_CPU_ONLY=ours-none,ours-shadow` restricts the targets;
 * `PROXY_CPU_OURS_ENV=SVC_APP_PROXY_SERVER=bun` runs ours on Bun.serve (the default is the raw server).
 * `PROXY_CPU_SHADOW=same|tenth|every`: the shadows answer live's document
 * (default), differ on one response in ten, or on every one (`fleet.ts`).
 * `PROXY_CPU_OURS_ENV=NAME=value,...` gives our proxy settings of its own
 * (`SVC_APP_SHADOW_CLIENT=fetch`, say).
 * `PROXY_CPU_BASELINE=<other checkout>/src/main.ts` adds `base-none`,
 * `base-shadow` and `base-down`: the same proxy from another checkout (an
 * A/B comparison of a change, interleaved in the same run, so that load
 * hits both alike). `PROXY_CPU_BASELINE_ENV=NAME=value,...` gives the
 * baseline settings of its own (the connections per host it was best
 * with, say). `PROXY_CPU_PROCESSES=N` runs each of `minimal`,
 * `minimal-shadow`, `raw-shadow`, `serve-http1` and `serve-fetch` as N processes on one
 * port (SO_REUSEPORT), as `SVC_APP_WORKERS` runs ours: what a second
 * process costs a reference that has no pipeline.
 */
import type { Subprocess } from 'bun'
import { readFileSync } from 'node:fs'
import { compileCaptureOptions, DEFAULT_DIFF_CONFIG, processCapture, type HeaderMap } from '../../../src/diff/index.ts'
import { createLogger } from '../../../src/log/index.ts'
import { compileShadowRules, createShadowHandler, DEFAULT_HTTP_CLIENT } from '../../../src/proxy/index.ts'
import { pathAndQueryOf } from '../../../src/net/request-target.ts'
import { SHADOW_VARIANTS, type ShadowVariant } from './fleet.ts'
import { serveRawShadow } from './raw-shadow.ts'
import { serveRawPipeline } from './raw-pipeline.ts'
import { REFERENCE_PROCESSES, serveFetchHttp1, serveHttp1, serveRawHttp1, SHARED_PORT } from './http1-floors.ts'
import { machineShares, machineTicks, stealText } from '../api-bench/machine.ts'
import { load } from './load.ts'
import { envPairs } from './env-pairs.ts'
import { freePort, processTree, startCpuRole, startFleet, startOurProxy, stop, waitForHttp } from './processes.ts'
import { JAVASCRIPT_THREAD, threadsOf } from './threads.ts'

/** The references that PROXY_CPU_PROCESSES runs as several processes on one port. */
const SHAREABLE = ['minimal', 'minimal-shadow', 'raw-shadow', 'raw-pipeline', 'raw-pipeline-none', 'raw-pipeline-relay', 'serve-http1', 'serve-fetch']
const TICK_US = 1_000_000 / 100 // USER_HZ

/** utime and stime of a process or thread, in µs. */
function statUs(path: string): { user: number; sys: number } {
  const stat = readFileSync(path, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { user: Number(fields[11]) * TICK_US, sys: Number(fields[12]) * TICK_US }
}

interface CpuSample {
  readonly js: number
  readonly http: number
  readonly other: number
  readonly sys: number
}

/**
 * A process's CPU so far, with its descendants' (the workers of
 * SVC_APP_WORKERS), by thread kind. A thread that ends between two
 * samples counts as `other`; a worker process that ends drops out of the
 * later sample (so a round in which one was restarted reads low).
 */
function processCpu(pid: number): CpuSample {
  const sample = { js: 0, http: 0, other: 0, sys: 0 }
  for (const each of processTree(pid)) {
    try {
      const own = ownCpu(each)
      sample.js += own.js
      sample.http += own.http
      sample.other += own.other
      sample.sys += own.sys
    } catch {
      // the process ended meanwhile
    }
  }
  return sample
}

function ownCpu(pid: number): CpuSample {
  const total = statUs(`/proc/${pid}/stat`)
  let js = 0
  let http = 0
  for (const { tid, name } of threadsOf(pid)) {
    if (name !== JAVASCRIPT_THREAD && name !== 'HTTP Client') continue
    try {
      const thread = statUs(`/proc/${pid}/task/${tid}/stat`)
      if (name === JAVASCRIPT_THREAD) js = thread.user + thread.sys
      else http = thread.user + thread.sys
    } catch {
      // the thread ended meanwhile
    }
  }
  return { js, http, other: total.user + total.sys - js - http, sys: total.sys }
}

/** A process's CPU time in all, µs. */
const totalUs = (sample: CpuSample) => sample.js + sample.http + sample.other

function headerMap(headers: Headers): HeaderMap {
  const map: HeaderMap = {}
  for (const [name, value] of headers) map[name] = [value]
  return map
}

/** What both minimal proxies send upstream: the client's request as it came. */
const upstreamInit = (request: Request) =>
  ({ method: request.method, headers: request.headers, redirect: 'manual', decompress: false }) as BunFetchRequestInit

function serveMinimal(port: number, live: string): void {
  Bun.serve({
    hostname: '127.0.0.1',
    port,
    reusePort: SHARED_PORT,
    async fetch(request) {
      const response = await fetch(live + pathAndQueryOf(request.url), upstreamInit(request))
      return new Response(response.body, { status: response.status, headers: response.headers })
    },
  })
}

function serveMinimalShadow(port: number, live: string, shadow: string): void {
  const compiled = compileCaptureOptions({ diff: DEFAULT_DIFF_CONFIG, redactedFields: [], maxBodyBytes: 0 })
  Bun.serve({
    hostname: '127.0.0.1',
    port,
    reusePort: SHARED_PORT,
    async fetch(request) {
      const path = pathAndQueryOf(request.url)
      const shadowSide = fetch(shadow + path, upstreamInit(request)).then(async (r) => ({ r, body: await r.bytes() }))
      const liveResponse = await fetch(live + path, upstreamInit(request))
      const liveBody = await liveResponse.bytes()
      void shadowSide.then(({ r, body }) => {
        processCapture(
          {
            request: { headers: {}, body: new Uint8Array(0) },
            live: { status: liveResponse.status, headers: headerMap(liveResponse.headers), body: liveBody },
            shadow: { status: r.status, headers: headerMap(r.headers), body },
          },
          compiled,
        )
      })
      return new Response(liveBody, { status: liveResponse.status, headers: liveResponse.headers })
    },
  })
}

/** Our handler in process, as start-proxy wires it, so that `bun --cpu-prof` sees it. */
function serveOurs(port: number, live: string, shadow: string, rate: number, seconds: number): void {
  const handler = createShadowHandler(
    {
      liveUrl: live,
      shadowUrl: shadow,
      gate: '',
      liveTimeoutMs: 5000,
      shadowTimeoutMs: 10_000,
      maxBodyBytes: 10 * 1024 * 1024,
      samplingRate: rate,
      shadowRules: compileShadowRules(''),
      maxConcurrentCallbacks: 200,
      httpClient: { ...DEFAULT_HTTP_CLIENT, maxConnsPerHost: 64, maxIdleConnsPerHost: 64 },
      redactedFields: [],
      diff: DEFAULT_DIFF_CONFIG,
    },
    { logger: createLogger({ level: 'warn', format: 'json' }) },
  )
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    fetch: (request, s) => handler.fetch(request, { clientAddress: s.requestIP(request)?.address }),
  })
  if (seconds > 0) {
    setTimeout(async () => {
      await server.stop(true)
      await handler.close(1000)
      process.exit(0)
    }, seconds * 1000)
  }
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 5)
  const rounds = Number(process.argv[3] ?? 3)
  const connections = Number(process.argv[4] ?? 64)
  const only = process.env.PROXY_CPU_ONLY?.split(',')
  const at = (port: number) => `http://127.0.0.1:${port}`
  const baseline = process.env.PROXY_CPU_BASELINE
  const baselineEnv = envPairs(process.env.PROXY_CPU_BASELINE_ENV)
  const all = [
    'minimal',
    'ours-none',
    ...(baseline ? ['base-none'] : []),
    'raw-pipeline-none',
    'minimal-shadow',
    'raw-shadow',
    'raw-http1',
    'raw-pipeline',
    'raw-pipeline-relay',
    'serve-http1',
    'serve-fetch',
    'ours-shadow',
    ...(baseline ? ['base-shadow'] : []),
    'ours-down',
    ...(baseline ? ['base-down'] : []),
  ]
  const names = all.filter((n) => !only || only.includes(n))
  const shadowVariant = (process.env.PROXY_CPU_SHADOW ?? 'same') as ShadowVariant
  if (!SHADOW_VARIANTS.includes(shadowVariant)) throw new Error(`PROXY_CPU_SHADOW must be one of ${SHADOW_VARIANTS.join(', ')}`)
  const oursEnv = envPairs(process.env.PROXY_CPU_OURS_ENV)
  const ports = Object.fromEntries(names.map((n) => [n, { live: freePort(), shadow: freePort(), proxy: freePort() }]))
  const fleet = startFleet(0, names.map((n) => ports[n]!.live))
  // The shadows, on ports of their own: as live (`same`) or differing (PROXY_CPU_SHADOW=tenth|every).
  const shadowFleet = startFleet(0, names.map((n) => ports[n]!.shadow), shadowVariant)
  const children: Subprocess[] = [fleet, shadowFleet]
  const targets: { name: string; pid: number; url: string; us: number[]; rps: number[] }[] = []
  try {
    await Promise.all(names.flatMap((n) => [waitForHttp(at(ports[n]!.live)), waitForHttp(at(ports[n]!.shadow))]))
    for (const name of names) {
      const p = ports[name]!
      if (name.startsWith('ours') || name.startsWith('base')) {
        const rate = name.endsWith('-none') ? '0' : '1'
        const main = name.startsWith('base') ? baseline : undefined
        // Down: a port nothing listens on, so every connection is refused.
        const shadow = name.endsWith('-down') ? at(freePort()) : at(p.shadow)
        const env = { SVC_APP_SAMPLING_RATE: rate, ...(name.startsWith('base') ? baselineEnv : oursEnv) }
        const proxy = await startOurProxy(at(p.live), shadow, env, main)
        children.push(proxy.child)
        targets.push({ name, pid: proxy.child.pid, url: `${proxy.url}/`, us: [], rps: [] })
      } else {
        const args = name === 'minimal' ? [String(p.proxy), at(p.live)] : [String(p.proxy), at(p.live), at(p.shadow)]
        if (name.startsWith('raw-pipeline')) args.push(name.endsWith('-none') ? '0' : '1', name.endsWith('-relay') ? 'relay' : 'pinned')
        const copies = SHAREABLE.includes(name) ? REFERENCE_PROCESSES : 1
        const roleName = name.replace(/-(none|relay)$/, '')
        const role = copies > 1 ? ['group', String(copies), roleName] : [roleName]
        const child = startCpuRole([...role, ...args])
        children.push(child)
        await waitForHttp(at(p.proxy))
        targets.push({ name, pid: child.pid, url: `${at(p.proxy)}/`, us: [], rps: [] })
      }
    }
    for (const t of targets) await load(t.url, 2, connections) // warm-up
    for (let round = 1; round <= rounds; round++) {
      for (const t of targets) {
        const upstreams = () => totalUs(processCpu(fleet.pid)) + totalUs(processCpu(shadowFleet.pid))
        const before = { proxy: processCpu(t.pid), fleet: upstreams(), machine: machineTicks() }
        const r = await load(t.url, seconds, connections)
        const after = { proxy: processCpu(t.pid), fleet: upstreams(), machine: machineTicks() }
        const per = (key: keyof CpuSample) => (after.proxy[key] - before.proxy[key]) / r.requests
        const us = (totalUs(after.proxy) - totalUs(before.proxy)) / r.requests
        const fleetUs = (after.fleet - before.fleet) / r.requests
        const { busy } = machineShares(before.machine, after.machine)
        t.us.push(us)
        t.rps.push(r.rps)
        const f = (x: number) => x.toFixed(1)
        console.log(
          `round ${round} ${t.name.padEnd(15)} ${f(us).padStart(6)} µs/req (js ${f(per('js'))}, http ${f(per('http'))}, ` +
            `other ${f(per('other'))}; sys ${f(per('sys'))})  upstreams ${f(fleetUs)} µs/req  machine ${(busy * 100).toFixed(0)} % busy, ${stealText(before.machine, after.machine)}  ` +
            `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50Ms.toFixed(2)} ms  p99 ${r.p99Ms.toFixed(2)} ms`,
        )
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    console.log('median CPU per request (µs), min–max:')
    for (const t of targets) {
      console.log(`  ${t.name.padEnd(15)} ${median(t.us).toFixed(1).padStart(6)}  (${Math.min(...t.us).toFixed(0)}–${Math.max(...t.us).toFixed(0)})  ${median(t.rps).toFixed(0)} req/s`)
    }
  } finally {
    for (const child of children) await stop(child)
  }
}

const [role, ...args] = process.argv.slice(2)
if (role === 'group') {
  // PROXY_CPU_PROCESSES copies of a reference on one port, children of this one (so that processCpu counts them all).
  const copies = Array.from({ length: Number(args[0]) }, () => startCpuRole(args.slice(1)))
  const stopAll = async (code: number) => {
    for (const copy of copies) copy.kill()
    await Promise.all(copies.map((copy) => copy.exited))
    process.exit(code)
  }
  process.on('SIGTERM', () => void stopAll(0))
  // A copy that fails (its port not shared, say) would leave fewer processes measured than asked.
  for (const copy of copies) void copy.exited.then((code) => code !== 0 && stopAll(1))
} else if (role === 'minimal') serveMinimal(Number(args[0]), args[1]!)
else if (role === 'minimal-shadow') serveMinimalShadow(Number(args[0]), args[1]!, args[2]!)
else if (role === 'raw-shadow') serveRawShadow(Number(args[0]), args[1]!, args[2]!)
else if (role === 'raw-pipeline') serveRawPipeline(Number(args[0]), args[1]!, args[2]!, Number(args[3]), args[4] === 'relay' ? 'relay' : 'pinned')
else if (role === 'raw-http1') serveRawHttp1(Number(args[0]), args[1]!, args[2]!)
else if (role === 'serve-http1') serveHttp1(Number(args[0]), args[1]!, args[2]!)
else if (role === 'serve-fetch') serveFetchHttp1(Number(args[0]), args[1]!, args[2]!)
else if (role === 'ours') serveOurs(Number(args[0]), args[1]!, args[2]!, Number(args[3]), Number(args[4] ?? 0))
else await main()
