/**
 * The proxy's benchmark (issue 4): side by side on this machine, a 2 KB
 * JSON upstream, keep-alive, 64 connections:
 *
 *   direct to live · nginx proxy_pass · nginx proxy_pass + mirror ·
 *   our proxy without shadowing · our proxy shadowing and diffing every
 *   request · our proxy with a shadow that sleeps 2 s · with a shadow that
 *   is down · and, at half the maximum rate, the check that
 *   compared + skipped = received, exactly.
 *
 * Run alone: `bun run test/bench/proxy.bench.ts`, or import `runProxyBench()`.
 * Load comes from wrk when installed (`apt-get install -y wrk`), else from
 * a bounded in-process generator (slower; the figures say which).
 *
 * Environment knobs:
 *   PROXY_BENCH_SECONDS       seconds per throughput run          (default 8)
 *   PROXY_BENCH_SLOW_SECONDS  seconds of the slow/down-shadow runs (default 20; the issue's figure is 60)
 *   PROXY_BENCH_CONNECTIONS   client connections                  (default 64)
 *
 * Every server is a child process on 127.0.0.1 that this script starts
 * and stops by its PID.
 */
import { spawn, spawnSync, type Subprocess } from 'bun'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const SELF = resolve(import.meta.path)
const MAIN = resolve(import.meta.dir, '../../src/main.ts')

// ---------------------------------------------------------------------------
// Child roles: `bun run proxy.bench.ts upstream <port> [sleepMs]`
// ---------------------------------------------------------------------------

/** The 2 KB JSON document every upstream answers. */
export const BENCH_BODY = JSON.stringify({
  data: Array.from({ length: 14 }, (_, i) => ({
    id: 1000 + i,
    sku: `SKU-${(i * 7919) % 100_000}`,
    name: `Product number ${i}`,
    price: Math.round(i * 1234.5) / 100,
    currency: 'EUR',
    tags: ['catalog', 'bench'],
    available: i % 2 === 0,
  })),
  pagination: { limit: 14, offset: 0, total: 14, has_more: false },
})

function runUpstream(port: number, sleepMs: number): void {
  const headers = { 'content-type': 'application/json' }
  Bun.serve({
    hostname: '127.0.0.1',
    port,
    idleTimeout: 120,
    fetch: sleepMs > 0 ? () => Bun.sleep(sleepMs).then(() => new Response(BENCH_BODY, { headers })) : () => new Response(BENCH_BODY, { headers }),
  })
}

// ---------------------------------------------------------------------------
// Load generation
// ---------------------------------------------------------------------------

export interface LoadResult {
  readonly requests: number
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly errors: number
  readonly tool: 'wrk' | 'in-process'
}

const hasWrk = spawnSync(['sh', '-c', 'command -v wrk']).exitCode === 0

async function load(url: string, seconds: number, connections: number): Promise<LoadResult> {
  return hasWrk ? wrk(url, seconds, connections) : inProcessLoad(url, seconds, connections)
}

async function wrk(url: string, seconds: number, connections: number): Promise<LoadResult> {
  const child = spawn(['wrk', '-t2', `-c${connections}`, `-d${seconds}s`, '--latency', url], { stdout: 'pipe', stderr: 'pipe' })
  const text = await new Response(child.stdout).text()
  await child.exited
  const duration = (pattern: RegExp) => {
    const m = pattern.exec(text)
    if (!m) return NaN
    const value = Number(m[1])
    return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value
  }
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? NaN)
  const errorsMatch = /Non-2xx or 3xx responses: (\d+)/.exec(text)
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)
  const errors =
    Number(errorsMatch?.[1] ?? 0) + (socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0)
  return {
    requests,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN),
    p50Ms: duration(/\s50%\s+([\d.]+)(us|ms|s)/),
    p99Ms: duration(/\s99%\s+([\d.]+)(us|ms|s)/),
    errors,
    tool: 'wrk',
  }
}

/** A closed-loop generator: `connections` workers, each sending the next request when the last is done. */
async function inProcessLoad(url: string, seconds: number, connections: number): Promise<LoadResult> {
  const latencies: number[] = []
  let errors = 0
  const end = performance.now() + seconds * 1000
  const started = performance.now()
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t = performance.now()
        try {
          const response = await fetch(url)
          await response.arrayBuffer()
          if (response.status >= 400) errors++
        } catch {
          errors++
        }
        latencies.push(performance.now() - t)
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50Ms: latencies[Math.floor(latencies.length * 0.5)] ?? NaN,
    p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? NaN,
    errors,
    tool: 'in-process',
  }
}

/**
 * An open-loop generator at a fixed rate (for the accounting check): a
 * request is started every 1/rate s, at most `connections` in flight (a
 * request that finds them all busy is not sent, and counted as dropped).
 */
async function fixedRate(url: string, rate: number, seconds: number, connections: number) {
  let sent = 0
  let dropped = 0
  let failed = 0
  let inFlight = 0
  const tickMs = 5
  const perTick = rate * (tickMs / 1000)
  let credit = 0
  const end = performance.now() + seconds * 1000
  const pending = new Set<Promise<void>>()
  while (performance.now() < end) {
    credit += perTick
    while (credit >= 1) {
      credit--
      if (inFlight >= connections) {
        dropped++
        continue
      }
      inFlight++
      sent++
      const p: Promise<void> = fetch(url)
        .then((r) => r.arrayBuffer())
        .then(
          () => {},
          () => void failed++,
        )
        .finally(() => {
          inFlight--
          pending.delete(p)
        })
      pending.add(p)
    }
    await Bun.sleep(tickMs)
  }
  await Promise.all(pending)
  return { sent, dropped, failed }
}

// ---------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------

function freePort(): number {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

async function waitForHttp(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    try {
      const response = await fetch(url)
      await response.arrayBuffer()
      if (response.status < 500) return
    } catch {
      // not up yet
    }
    if (performance.now() > deadline) throw new Error(`${url} did not come up within ${timeoutMs} ms`)
    await Bun.sleep(50)
  }
}

function startUpstream(port: number, sleepMs = 0): Subprocess {
  return spawn(['bun', 'run', SELF, 'upstream', String(port), String(sleepMs)], { stdout: 'ignore', stderr: 'inherit' })
}

interface OurProxy {
  readonly child: Subprocess
  readonly url: string
  readonly adminUrl: string
}

/** Our proxy settings for the runs; see docs/proxy.md "Benchmark" for why. */
export const OUR_PROXY_ENV = {
  SVC_APP_LOG_LEVEL: 'warn',
  SVC_APP_LOG_FORMAT: 'json',
  SVC_APP_APP_ENV: 'production',
  // Live and shadow together within Bun's 64 shared idle sockets: no churn.
  SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST: '32',
  SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS_PER_HOST: '32',
} as const

async function startOurProxy(live: string, shadow: string, env: Record<string, string>): Promise<OurProxy> {
  const port = freePort()
  const adminPort = freePort()
  const child = spawn(['bun', 'run', MAIN, 'proxy'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...OUR_PROXY_ENV,
      SVC_APP_PORT: String(port),
      SVC_APP_ADMIN_PORT: String(adminPort),
      SVC_APP_LIVE_URL: live,
      SVC_APP_SHADOW_URL: shadow,
      ...env,
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const proxy = { child, url: `http://127.0.0.1:${port}`, adminUrl: `http://127.0.0.1:${adminPort}` }
  await waitForHttp(`${proxy.adminUrl}/health/ready`)
  return proxy
}

async function stop(child: Subprocess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await child.exited
  clearTimeout(timer)
}

function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024
  } catch {
    return NaN
  }
}

/** TIME_WAIT sockets to or from the given ports (the proxy's outbound connections). */
function timeWait(ports: number[]): number {
  const filter = ports.map((p) => `dport = :${p} or sport = :${p}`).join(' or ')
  const result = spawnSync(['ss', '-tan', 'state', 'time-wait', `( ${filter} )`])
  if (result.exitCode !== 0) return NaN
  return Math.max(0, result.stdout.toString().trim().split('\n').length - 1)
}

function sumSamples(text: string, name: string, labels: Record<string, string> = {}): number {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  let sum = 0
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const end = line.search(/[{ ]/)
    if (end === -1 || line.slice(0, end) !== name || !pairs.every((p) => line.includes(p))) continue
    sum += Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return sum
}

// ---------------------------------------------------------------------------
// nginx: the reference a user would otherwise pick
// ---------------------------------------------------------------------------

const hasNginx = spawnSync(['sh', '-c', 'command -v nginx']).exitCode === 0

interface Nginx {
  readonly child: Subprocess
  readonly proxyUrl: string
  readonly mirrorUrl: string
  readonly dir: string
}

async function startNginx(livePort: number, shadowPort: number): Promise<Nginx | undefined> {
  if (!hasNginx) return undefined
  const dir = mkdtempSync(join(tmpdir(), 'proxy-bench-nginx-'))
  const proxyPort = freePort()
  const mirrorPort = freePort()
  const upstreamOptions = 'proxy_http_version 1.1; proxy_set_header Connection "";'
  const config = `
daemon off;
worker_processes auto;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream live { server 127.0.0.1:${livePort}; keepalive 64; }
  upstream shadow { server 127.0.0.1:${shadowPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${proxyPort};
    location / { proxy_pass http://live; ${upstreamOptions} }
  }
  server {
    listen 127.0.0.1:${mirrorPort};
    location / { mirror /mirror; proxy_pass http://live; ${upstreamOptions} }
    location = /mirror { internal; proxy_pass http://shadow$request_uri; ${upstreamOptions} }
  }
}
`
  writeFileSync(join(dir, 'nginx.conf'), config)
  const child = spawn(['nginx', '-p', dir, '-c', join(dir, 'nginx.conf')], { stdout: 'ignore', stderr: 'inherit' })
  const nginx = { child, proxyUrl: `http://127.0.0.1:${proxyPort}/`, mirrorUrl: `http://127.0.0.1:${mirrorPort}/`, dir }
  try {
    await waitForHttp(nginx.proxyUrl)
  } catch (error) {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
    console.error(`nginx did not start (${String(error)}); its rows are skipped`)
    return undefined
  }
  return nginx
}

async function stopNginx(nginx: Nginx | undefined): Promise<void> {
  if (!nginx) return
  // SIGQUIT: graceful shutdown of the master (our own child) and its workers.
  nginx.child.kill('SIGQUIT')
  const timer = setTimeout(() => nginx.child.kill('SIGKILL'), 10_000)
  await nginx.child.exited
  clearTimeout(timer)
  rmSync(nginx.dir, { recursive: true, force: true })
}

// ---------------------------------------------------------------------------
// The runs
// ---------------------------------------------------------------------------

export interface BenchRow {
  readonly name: string
  readonly result: LoadResult | undefined
  /** TIME_WAIT sockets to/from the upstream ports created during the run. */
  readonly timeWait: number
  readonly rssMb?: number
  readonly note?: string
}

export interface AccountingCheck {
  readonly rate: number
  readonly sent: number
  readonly received: number
  readonly compared: number
  readonly skipped: Readonly<Record<string, number>>
  readonly exact: boolean
}

export interface ProxyBenchReport {
  readonly date: string
  readonly machine: string
  readonly rows: BenchRow[]
  readonly accounting: AccountingCheck | undefined
}

export interface ProxyBenchOptions {
  /** @default PROXY_BENCH_SECONDS or 8 */
  readonly seconds?: number
  /** @default PROXY_BENCH_SLOW_SECONDS or 20 */
  readonly slowSeconds?: number
  /** @default PROXY_BENCH_CONNECTIONS or 64 */
  readonly connections?: number
  /** @default console.log */
  readonly print?: (line: string) => void
}

export async function runProxyBench(options: ProxyBenchOptions = {}): Promise<ProxyBenchReport> {
  const seconds = options.seconds ?? Number(process.env.PROXY_BENCH_SECONDS ?? 8)
  const slowSeconds = options.slowSeconds ?? Number(process.env.PROXY_BENCH_SLOW_SECONDS ?? 20)
  const connections = options.connections ?? Number(process.env.PROXY_BENCH_CONNECTIONS ?? 64)
  const print = options.print ?? ((line: string) => console.log(line))
  if (!hasWrk) print('wrk not found (apt-get install -y wrk): using the slower in-process load generator')
  if (!hasNginx) print('nginx not found (apt-get install -y nginx): the nginx rows are skipped')

  const livePort = freePort()
  const shadowPort = freePort()
  const slowPort = freePort()
  const downPort = freePort()
  const upstreamPorts = [livePort, shadowPort, slowPort]
  const children: Subprocess[] = [startUpstream(livePort), startUpstream(shadowPort), startUpstream(slowPort, 2000)]
  const liveUrl = `http://127.0.0.1:${livePort}`
  const shadowUrl = `http://127.0.0.1:${shadowPort}`
  const rows: BenchRow[] = []
  let nginx: Nginx | undefined
  let accounting: AccountingCheck | undefined

  const measure = async (name: string, url: string, runSeconds: number, extra: Partial<BenchRow> = {}) => {
    await load(url, 1, connections) // warm-up: connections, JIT
    await Bun.sleep(200)
    const before = timeWait(upstreamPorts)
    const result = await load(url, runSeconds, connections)
    const row: BenchRow = { name, result, timeWait: Math.max(0, timeWait(upstreamPorts) - before), ...extra }
    rows.push(row)
    print(`  ${name}: ${result.rps.toFixed(0)} rps, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`)
    return row
  }

  try {
    await Promise.all([waitForHttp(liveUrl), waitForHttp(shadowUrl), waitForHttp(`http://127.0.0.1:${slowPort}`, 20_000).catch(() => {})])
    print(`proxy benchmark: ${connections} connections, ${seconds} s per run, ${slowSeconds} s for the slow/down shadow runs`)

    await measure('direct to live', `${liveUrl}/`, seconds)

    nginx = await startNginx(livePort, shadowPort)
    if (nginx) {
      await measure('nginx proxy_pass', nginx.proxyUrl, seconds)
      await measure('nginx proxy_pass + mirror', nginx.mirrorUrl, seconds)
    }
    await stopNginx(nginx)
    nginx = undefined

    // Ours, without shadowing (every request sampled out).
    let proxy = await startOurProxy(liveUrl, shadowUrl, { SVC_APP_SAMPLING_RATE: '0' })
    children.push(proxy.child)
    const noShadow = await measure('ours, no shadowing', `${proxy.url}/`, seconds)
    await stop(proxy.child)

    // Ours, shadowing and diffing every request.
    proxy = await startOurProxy(liveUrl, shadowUrl, {})
    children.push(proxy.child)
    const shadowed = await measure('ours, shadow + diff every request', `${proxy.url}/`, seconds)

    // At half the maximum rate: every request accounted for, exactly.
    const rate = Math.max(100, Math.floor((shadowed.result?.rps ?? 2000) / 2))
    const before = await (await fetch(`${proxy.adminUrl}/metrics`)).text()
    const sent = await fixedRate(`${proxy.url}/`, rate, Math.min(seconds, 10), connections)
    let after = ''
    for (let i = 0; i < 200; i++) {
      after = await (await fetch(`${proxy.adminUrl}/metrics`)).text()
      if (sumSamples(after, 'svc_background_comparisons') === 0) break
      await Bun.sleep(50)
    }
    const delta = (name: string, labels: Record<string, string> = {}) => sumSamples(after, name, labels) - sumSamples(before, name, labels)
    const skipped: Record<string, number> = {}
    for (const reason of ['sampled_out', 'denied_by_rule', 'body_too_large', 'callbacks_full', 'breaker_open', 'report_failed']) {
      skipped[reason] = delta('svc_comparisons_skipped_total', { reason })
    }
    const received = delta('http_server_request_duration_seconds_count')
    const compared = delta('svc_responses_compared_total')
    const skippedTotal = Object.values(skipped).reduce((a, b) => a + b, 0)
    accounting = { rate, sent: sent.sent, received, compared, skipped, exact: compared + skippedTotal === received && received === sent.sent }
    print(`  accounting at ${rate} rps: sent ${sent.sent}, received ${received}, compared ${compared}, skipped ${skippedTotal} → ${accounting.exact ? 'exact' : 'MISMATCH'}`)
    await stop(proxy.child)

    // Ours, with a shadow that sleeps 2 s, then with a shadow that is down.
    for (const [name, shadow] of [
      ['ours, shadow sleeps 2 s', `http://127.0.0.1:${slowPort}`],
      ['ours, shadow down', `http://127.0.0.1:${downPort}`],
    ] as const) {
      proxy = await startOurProxy(liveUrl, shadow, {})
      children.push(proxy.child)
      const row = await measure(name, `${proxy.url}/`, slowSeconds)
      const rss = rssMb(proxy.child.pid)
      rows[rows.length - 1] = { ...row, rssMb: rss, note: vsNoShadow(row.result, noShadow.result) }
      print(`    RSS after ${slowSeconds} s: ${rss.toFixed(0)} MB`)
      await stop(proxy.child)
    }
  } finally {
    await stopNginx(nginx)
    await Promise.all(children.map((child) => stop(child)))
  }

  const report: ProxyBenchReport = {
    date: new Date().toISOString(),
    machine: machineText(),
    rows,
    accounting,
  }
  print('')
  print(formatReport(report))
  return report
}

function vsNoShadow(result: LoadResult | undefined, baseline: LoadResult | undefined): string {
  if (!result || !baseline) return ''
  const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(0)}%`
  return `p50 ${pct(result.p50Ms, baseline.p50Ms)}, p99 ${pct(result.p99Ms, baseline.p99Ms)} vs no shadowing`
}

function machineText(): string {
  const cpus = navigator.hardwareConcurrency
  let model = ''
  try {
    model = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? ''
  } catch {
    // not Linux
  }
  return `${cpus} cores${model ? ` (${model})` : ''}, Bun ${Bun.version}, ${process.platform}`
}

/** The report as a readable table. */
export function formatReport(report: ProxyBenchReport): string {
  const direct = report.rows.find((r) => r.name === 'direct to live')?.result?.rps
  const header = ['scenario', 'req/s', 'vs direct', 'p50 ms', 'p99 ms', 'errors', 'TIME_WAIT', 'RSS MB', 'note']
  const body = report.rows.map((row) => {
    const r = row.result
    return [
      row.name,
      r ? r.rps.toFixed(0) : '-',
      r && direct ? `${(r.rps / direct).toFixed(2)}x` : '-',
      r ? r.p50Ms.toFixed(2) : '-',
      r ? r.p99Ms.toFixed(2) : '-',
      r ? String(r.errors) : '-',
      Number.isNaN(row.timeWait) ? '?' : String(row.timeWait),
      row.rssMb === undefined ? '' : row.rssMb.toFixed(0),
      row.note ?? '',
    ]
  })
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  const lines = [
    `${report.date} · ${report.machine} · load: ${report.rows[0]?.result?.tool ?? '?'}`,
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...body.map(line),
  ]
  const a = report.accounting
  if (a) {
    const reasons = Object.entries(a.skipped)
      .filter(([, n]) => n > 0)
      .map(([reason, n]) => `${reason} ${n}`)
      .join(', ')
    lines.push(
      '',
      `accounting at ${a.rate} req/s (half the max): sent ${a.sent}, received ${a.received}, compared ${a.compared}, skipped ${Object.values(a.skipped).reduce((x, y) => x + y, 0)}${reasons ? ` (${reasons})` : ''}: ${a.exact ? 'compared + skipped = received, exactly' : 'MISMATCH'}`,
    )
  }
  return lines.join('\n')
}

if (import.meta.main) {
  const [role, port, sleepMs] = process.argv.slice(2)
  if (role === 'upstream') {
    runUpstream(Number(port), Number(sleepMs ?? 0))
  } else {
    await runProxyBench()
  }
}
