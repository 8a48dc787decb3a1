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
 * The machine may be shared: scenarios run in interleaved rounds and the
 * median is reported, so that a burst of background load does not land on
 * one row only.
 *
 * Environment knobs:
 *   PROXY_BENCH_SECONDS       seconds per run                         (default 6)
 *   PROXY_BENCH_ROUNDS        interleaved rounds per scenario         (default 3)
 *   PROXY_BENCH_SLOW_SECONDS  seconds of load on the slow/down shadow (default 20; the issue's figure is 60)
 *   PROXY_BENCH_CONNECTIONS   client connections                      (default 64)
 *
 * Every server is a child process on 127.0.0.1 that this script starts
 * and stops by its PID.
 */
import type { Subprocess } from 'bun'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { SKIP_REASONS } from '../../src/metrics/index.ts'
import { fixedRate, hasWrk, load, type LoadResult } from './proxy-bench/load.ts'
import {
  freePort,
  hasNginx,
  rssMb,
  startFleet,
  startNginx,
  startOurProxy,
  stop,
  stopNginx,
  sumSamples,
  timeWait,
  waitForHttp,
  type Nginx,
  type OurProxy,
} from './proxy-bench/processes.ts'

const SELF = resolve(import.meta.path)

// ---------------------------------------------------------------------------
// Child role: `bun run proxy.bench.ts fleet <sleepMs> <port>...` serves the
// document on every port (one port per scenario, so that TIME_WAIT sockets
// can be told apart), after `sleepMs` when not 0.
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

function runFleet(sleepMs: number, ports: number[]): void {
  const headers = { 'content-type': 'application/json' }
  const answer = () => new Response(BENCH_BODY, { headers })
  for (const port of ports) {
    Bun.serve({
      hostname: '127.0.0.1',
      port,
      idleTimeout: 120,
      fetch: sleepMs > 0 ? () => Bun.sleep(sleepMs).then(answer) : answer,
    })
  }
}

// ---------------------------------------------------------------------------
// The runs
// ---------------------------------------------------------------------------

export interface BenchRow {
  readonly name: string
  /** The median run (by throughput) of the rounds. */
  readonly result: LoadResult | undefined
  /** Most TIME_WAIT sockets seen on this scenario's upstream ports after a run. */
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
  readonly rounds: number
  readonly rows: BenchRow[]
  readonly accounting: AccountingCheck | undefined
}

export interface ProxyBenchOptions {
  /** Seconds per run. @default PROXY_BENCH_SECONDS or 6 */
  readonly seconds?: number
  /** Runs per scenario, interleaved; the median is reported. @default PROXY_BENCH_ROUNDS or 3 */
  readonly rounds?: number
  /** Seconds of load on the slow and the down shadow each. @default PROXY_BENCH_SLOW_SECONDS or 20 */
  readonly slowSeconds?: number
  /** @default PROXY_BENCH_CONNECTIONS or 64 */
  readonly connections?: number
  /** @default console.log */
  readonly print?: (line: string) => void
}

interface Target {
  readonly name: string
  readonly url: string
  /** The upstream ports only this scenario uses. */
  readonly ports: number[]
  readonly runs: LoadResult[]
  timeWait: number
}

export async function runProxyBench(options: ProxyBenchOptions = {}): Promise<ProxyBenchReport> {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
  const seconds = options.seconds ?? env('PROXY_BENCH_SECONDS', 6)
  const rounds = options.rounds ?? env('PROXY_BENCH_ROUNDS', 3)
  const slowSeconds = options.slowSeconds ?? env('PROXY_BENCH_SLOW_SECONDS', 20)
  const connections = options.connections ?? env('PROXY_BENCH_CONNECTIONS', 64)
  const print = options.print ?? ((line: string) => console.log(line))
  // On a shared machine, say how busy it was before we added our load.
  const idleBefore = await cpuIdleText()
  print(`machine before the run: ${idleBefore}`)
  if (!hasWrk) print('wrk not found (apt-get install -y wrk): using the slower in-process load generator')
  if (!hasNginx) print('nginx not found (apt-get install -y nginx): the nginx rows are skipped')

  // One live port per scenario, shadow ports where a scenario has a shadow.
  const live = { direct: freePort(), nginx: freePort(), mirror: freePort(), none: freePort(), shadow: freePort(), slow: freePort(), down: freePort() }
  const shadowPorts = { mirror: freePort(), shadow: freePort(), none: freePort() }
  const slowShadow = freePort()
  const downShadow = freePort()
  const children: Subprocess[] = [
    startFleet(SELF, 0, Object.values(live)),
    startFleet(SELF, 0, Object.values(shadowPorts)),
    startFleet(SELF, 2000, [slowShadow]),
  ]
  const at = (port: number) => `http://127.0.0.1:${port}`
  let nginx: Nginx | undefined
  let accounting: AccountingCheck | undefined
  const rows: BenchRow[] = []

  const run = async (target: Target, runSeconds: number) => {
    const result = await load(target.url, runSeconds, connections)
    target.runs.push(result)
    target.timeWait = Math.max(target.timeWait, timeWait(target.ports))
    return result
  }
  const target = (name: string, url: string, ports: number[]): Target => ({ name, url, ports, runs: [], timeWait: 0 })

  try {
    await Promise.all([...Object.values(live), ...Object.values(shadowPorts)].map((port) => waitForHttp(at(port))))
    nginx = await startNginx(live.nginx, live.mirror, shadowPorts.mirror)
    const proxies = {
      none: await startOurProxy(at(live.none), at(shadowPorts.none), { SVC_APP_SAMPLING_RATE: '0' }),
      shadow: await startOurProxy(at(live.shadow), at(shadowPorts.shadow), {}),
      slow: await startOurProxy(at(live.slow), at(slowShadow), {}),
      down: await startOurProxy(at(live.down), at(downShadow), {}),
    }
    children.push(...Object.values(proxies).map((p) => p.child))
    const main: Target[] = [
      target('direct to live', `${at(live.direct)}/`, [live.direct]),
      ...(nginx
        ? [
            target('nginx proxy_pass', nginx.proxyUrl, [live.nginx]),
            target('nginx proxy_pass + mirror', nginx.mirrorUrl, [live.mirror, shadowPorts.mirror]),
          ]
        : []),
      target('ours, no shadowing', `${proxies.none.url}/`, [live.none]),
      target('ours, shadow + diff every request', `${proxies.shadow.url}/`, [live.shadow, shadowPorts.shadow]),
    ]
    print(`proxy benchmark: ${connections} connections, ${rounds} interleaved rounds of ${seconds} s, ${slowSeconds} s on the slow/down shadow`)
    for (const t of main) await load(t.url, 1, connections) // warm-up: connections, JIT
    for (let round = 1; round <= rounds; round++) {
      for (const t of main) {
        const r = await run(t, seconds)
        print(`  round ${round}, ${t.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms`)
      }
    }
    rows.push(...main.map((t) => ({ name: t.name, result: median(t.runs), timeWait: t.timeWait })))

    // Slow and down shadow: short segments alternating with the no-shadow
    // proxy, so that all three see the same background load.
    const noShadow = target('ours, no shadowing (alongside)', `${proxies.none.url}/`, [live.none])
    const slow = target('ours, shadow sleeps 2 s', `${proxies.slow.url}/`, [live.slow])
    const down = target('ours, shadow down', `${proxies.down.url}/`, [live.down])
    const segments = Math.max(1, Math.round(slowSeconds / 5))
    const segmentSeconds = Math.max(1, Math.round(slowSeconds / segments))
    for (const t of [slow, down]) await load(t.url, 1, connections)
    for (let segment = 0; segment < segments; segment++) {
      for (const t of [noShadow, slow, down]) await run(t, segmentSeconds)
    }
    const baseline = median(noShadow.runs)
    for (const t of [slow, down]) {
      const proxy = t === slow ? proxies.slow : proxies.down
      const result = median(t.runs)
      rows.push({ name: t.name, result, timeWait: t.timeWait, rssMb: rssMb(proxy.child.pid), note: vsNoShadow(result, baseline) })
      print(`  ${t.name}: ${result?.rps.toFixed(0)} req/s, p50 ${result?.p50Ms.toFixed(2)} ms, p99 ${result?.p99Ms.toFixed(2)} ms; ${vsNoShadow(result, baseline)}; RSS ${rssMb(proxy.child.pid).toFixed(0)} MB after ${segments * segmentSeconds} s`)
    }

    // At half the maximum rate: every request accounted for, exactly.
    accounting = await checkAccounting(proxies.shadow, Math.floor((rows.find((r) => r.name.startsWith('ours, shadow +'))?.result?.rps ?? 2000) / 2), Math.min(seconds * 2, 10), connections)
    print(`  accounting at ${accounting.rate} req/s: sent ${accounting.sent}, received ${accounting.received}, compared ${accounting.compared} → ${accounting.exact ? 'exact' : 'MISMATCH'}`)
  } finally {
    await stopNginx(nginx)
    await Promise.all(children.map((child) => stop(child)))
  }

  const report: ProxyBenchReport = { date: new Date().toISOString(), machine: `${machineText()}, ${idleBefore}`, rounds, rows, accounting }
  print('')
  print(formatReport(report))
  return report
}

async function checkAccounting(proxy: OurProxy, rate: number, seconds: number, connections: number): Promise<AccountingCheck> {
  const scrape = async () => (await fetch(`${proxy.adminUrl}/metrics`)).text()
  const before = await scrape()
  const sent = await fixedRate(`${proxy.url}/`, Math.max(100, rate), seconds, connections)
  let after = ''
  for (let i = 0; i < 200; i++) {
    after = await scrape()
    if (sumSamples(after, 'svc_background_comparisons') === 0) break
    await Bun.sleep(50)
  }
  const delta = (name: string, labels: Record<string, string> = {}) => sumSamples(after, name, labels) - sumSamples(before, name, labels)
  const skipped: Record<string, number> = {}
  for (const reason of SKIP_REASONS) {
    skipped[reason] = delta('svc_comparisons_skipped_total', { reason })
  }
  const received = delta('http_server_request_duration_seconds_count')
  const compared = delta('svc_responses_compared_total')
  const skippedTotal = Object.values(skipped).reduce((a, b) => a + b, 0)
  return {
    rate: Math.max(100, rate),
    sent: sent.sent,
    received,
    compared,
    skipped,
    exact: compared + skippedTotal === received && received === sent.sent - sent.failed,
  }
}

/** The run with the median throughput. */
function median(runs: LoadResult[]): LoadResult | undefined {
  if (runs.length === 0) return undefined
  const sorted = [...runs].sort((a, b) => a.rps - b.rps)
  const byRps = sorted[Math.floor((sorted.length - 1) / 2)]!
  const mid = (values: number[]) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!
  return {
    ...byRps,
    p50Ms: mid(runs.map((r) => r.p50Ms)),
    p99Ms: mid(runs.map((r) => r.p99Ms)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  }
}

function vsNoShadow(result: LoadResult | undefined, baseline: LoadResult | undefined): string {
  if (!result || !baseline) return ''
  const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(0)}%`
  return `p50 ${pct(result.p50Ms, baseline.p50Ms)}, p99 ${pct(result.p99Ms, baseline.p99Ms)} vs no shadowing`
}

/** CPU idle over one second, from /proc/stat (Linux). */
async function cpuIdleText(): Promise<string> {
  const read = () => {
    try {
      const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
      return { idle: fields[3]! + (fields[4] ?? 0), total: fields.reduce((a, b) => a + b, 0) }
    } catch {
      return undefined
    }
  }
  const a = read()
  await Bun.sleep(1000)
  const b = read()
  if (!a || !b || b.total === a.total) return 'CPU idle unknown'
  return `CPU ${((1 - (b.idle - a.idle) / (b.total - a.total)) * 100).toFixed(0)}% busy before the run`
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
    `${report.date} · ${report.machine} · load: ${report.rows[0]?.result?.tool ?? '?'} · median of ${report.rounds} interleaved rounds`,
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
  const [role, sleepMs, ...ports] = process.argv.slice(2)
  if (role === 'fleet') {
    runFleet(Number(sleepMs), ports.map(Number))
  } else {
    await runProxyBench()
  }
}
