/**
 * The proxy's benchmark: side by side on this machine, a 2 KB JSON
 * upstream, keep-alive, 64 connections:
 *
 *   direct to live · nginx proxy_pass · nginx proxy_pass + mirror ·
 *   our proxy without shadowing · shadowing and diffing every request
 *   with three shadows: one that answers live's document, one that
 *   differs on one response in ten, one that differs on every response
 *   (one field of the 2 KB document) · each of ours with every
 *   SVC_APP_WORKERS setting asked for · a shadow that sleeps 2 s and one
 *   that is down · an open loop at half nginx + mirror's maximum, latency
 *   counted from when each request was due · and, at half the maximum
 *   rate, the check that compared + skipped = received, exactly.
 *
 * Then the targets of docs/proxy.md "Benchmark", met or missed (targets,
 * not tests: never an exit code).
 *
 * Run alone: `bun run test/bench/proxy.bench.ts`, or import `runProxyBench()`.
 * Load comes from wrk when installed (`apt-get install -y wrk`), else from
 * a bounded in-process generator (slower; the figures say which); the
 * open loop from `api-bench/load-generator.ts`.
 *
 * The machine may be shared: scenarios run in interleaved rounds and the
 * median is reported, so that a burst of background load does not land on
 * one row only; the load average before the run is printed with it.
 *
 * Environment knobs:
 *   PROXY_BENCH_SECONDS         seconds per run                                      (default 6)
 *   PROXY_BENCH_ROUNDS          interleaved rounds per scenario                      (default 3)
 *   PROXY_BENCH_SLOW_SECONDS    seconds of load on the slow/down shadow              (default 60, the target's)
 *   PROXY_BENCH_WARMUP_SECONDS  seconds of load on each target before it is measured (default 10; 0 for none)
 *   PROXY_BENCH_CONNECTIONS     client connections                                   (default 64)
 *   PROXY_BENCH_WORKERS         SVC_APP_WORKERS settings of ours, comma-separated    (default 1,auto; 1 where unsupported)
 *   PROXY_BENCH_OPEN_SECONDS    seconds per open-loop run                            (default 10)
 *   PROXY_BENCH_OPEN_RATE       the open loop's rate                                 (default half nginx + mirror's req/s)
 *   PROXY_BENCH_BASELINE        another checkout's src/main.ts: its proxy (1 worker) as the "before" rows
 *   PROXY_BENCH_ENV             NAME=value,... given to every one of our proxies (SVC_APP_SHADOW_CLIENT=fetch, say)
 *   PROXY_BENCH_REFERENCES      reference rows, comma-separated, empty for none      (default minimal,raw-shadow,serve-fetch)
 *
 * The reference rows are cpu.ts's, one process each: `minimal`, Bun's own
 * pass-through (Bun.serve and fetch); `raw-shadow`, the floor of shadowing
 * on Bun's raw sockets (the bytes to both upstreams and a comparison,
 * nothing else, the identical shadow); `serve-fetch`, our proxy's shape
 * without its pipeline. The no-shadowing and shadowing targets say what
 * the first two made of them in the same run: a target that even the
 * floor misses is the machine's answer more than the proxy's.
 *
 * Every server is a child process on 127.0.0.1 that this script starts
 * and stops by its PID.
 */
import type { Subprocess } from 'bun'
import { loadavg } from 'node:os'
import { readFileSync } from 'node:fs'
import { PROXY_VARIABLES } from '../../src/config/proxy-config.ts'
import { SKIP_REASONS } from '../../src/metrics/index.ts'
import type { ShadowVariant } from './proxy-bench/fleet.ts'
import { fixedRate, hasWrk, load, type LoadResult } from './proxy-bench/load.ts'
import { openLoop } from './proxy-bench/open-loop.ts'
import { envPairs } from './proxy-bench/env-pairs.ts'
import { machineShares, machineSystemCallUs, machineTicks, stealText, systemCallText, type MachineTicks } from './api-bench/machine.ts'
import {
  freePort,
  hasNginx,
  rssPerProcessMb,
  startCpuRole,
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
import { checkTargets, ROW, type OpenLoopRow, type TargetCheck } from './proxy-bench/targets.ts'

export { BENCH_BODY, DIFFERENT_BODY } from './proxy-bench/fleet.ts'

export interface BenchRow {
  readonly name: string
  /** SVC_APP_WORKERS of our proxy; undefined for the other rows. */
  readonly workers?: string
  /** The median run (by throughput) of the rounds. */
  readonly result: LoadResult | undefined
  /** Each round's run, in order (the main table's rows). */
  readonly rounds?: readonly LoadResult[]
  /** Most TIME_WAIT sockets seen on this scenario's upstream ports after a run. */
  readonly timeWait: number
  /** The largest RSS among the proxy's processes after the run, and how many there were. */
  readonly rssMb?: number
  readonly processes?: number
  readonly vsNoShadow?: { readonly p50: number; readonly p99: number }
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
  /** Seconds of load on each target before its rounds. */
  readonly warmupSeconds: number
  readonly rows: BenchRow[]
  readonly openLoop: OpenLoopRow[]
  readonly accounting: AccountingCheck | undefined
  readonly targets: TargetCheck[]
}

export interface ProxyBenchOptions {
  /** Seconds per run. @default PROXY_BENCH_SECONDS or 6 */
  readonly seconds?: number
  /** Runs per scenario, interleaved; the median is reported. @default PROXY_BENCH_ROUNDS or 3 */
  readonly rounds?: number
  /** Seconds of load on the slow and the down shadow each. @default PROXY_BENCH_SLOW_SECONDS or 60, the target's */
  readonly slowSeconds?: number
  /** @default PROXY_BENCH_CONNECTIONS or 64 */
  readonly connections?: number
  /**
   * Seconds of load on each target before its first measured run: a
   * fresh worker's JIT takes 6–9 s of this load to settle (docs/proxy.md
   * "Benchmark"). @default PROXY_BENCH_WARMUP_SECONDS or 10
   */
  readonly warmupSeconds?: number
  /** @default console.log */
  readonly print?: (line: string) => void
}

interface Target {
  readonly name: string
  readonly workers?: string
  readonly url: string
  /** The upstream ports only this scenario uses. */
  readonly ports: number[]
  readonly runs: LoadResult[]
  readonly proxy?: OurProxy
  timeWait: number
}

/** cpu.ts's reference roles that the benchmark can run as rows of its own: their row names, by role. */
const REFERENCES: Readonly<Record<string, string>> = { minimal: ROW.passThrough, 'raw-shadow': ROW.floor, 'serve-fetch': ROW.shape }

/** The shadowing rows, by the shadow they run against. */
const SHADOWED: readonly [ShadowVariant, string][] = [
  ['same', ROW.identical],
  ['tenth', ROW.tenth],
  ['every', ROW.every],
]

export async function runProxyBench(options: ProxyBenchOptions = {}): Promise<ProxyBenchReport> {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
  const seconds = options.seconds ?? env('PROXY_BENCH_SECONDS', 6)
  const rounds = options.rounds ?? env('PROXY_BENCH_ROUNDS', 3)
  const slowSeconds = options.slowSeconds ?? env('PROXY_BENCH_SLOW_SECONDS', 60)
  const connections = options.connections ?? env('PROXY_BENCH_CONNECTIONS', 64)
  const warmupSeconds = Math.max(0, options.warmupSeconds ?? env('PROXY_BENCH_WARMUP_SECONDS', 10))
  const openSeconds = env('PROXY_BENCH_OPEN_SECONDS', 10)
  const print = options.print ?? ((line: string) => console.log(line))
  const workersSupported = PROXY_VARIABLES.includes('SVC_APP_WORKERS')
  const workers = workersSupported ? listOf(process.env.PROXY_BENCH_WORKERS ?? '1,auto') : ['1']
  const most = workers[workers.length - 1]!
  const baseline = process.env.PROXY_BENCH_BASELINE
  const extraEnv = envPairs(process.env.PROXY_BENCH_ENV)
  const references = [...new Set(listOf(process.env.PROXY_BENCH_REFERENCES ?? 'minimal,raw-shadow,serve-fetch'))].map((role) => {
    if (!Object.hasOwn(REFERENCES, role)) throw new Error(`PROXY_BENCH_REFERENCES: ${role} is not one of ${Object.keys(REFERENCES).join(', ')}`)
    // `minimal` forwards to live only: no shadow port.
    const upstreams = role === 'minimal' ? [freePort()] : [freePort(), freePort()]
    return { role, name: REFERENCES[role]!, port: freePort(), upstreams }
  })
  // On a shared machine, say how busy it was before we added our load.
  const idleBefore = await machineBeforeText()
  print(`machine before the run: ${idleBefore}`)
  const runStart = machineTicks()
  if (!workersSupported) print('SVC_APP_WORKERS is not a variable of this proxy: one worker only')
  if (!hasWrk) print('wrk not found (apt-get install -y wrk): using the slower in-process load generator')
  if (!hasNginx) print('nginx not found (apt-get install -y nginx): the nginx rows are skipped')

  const at = (port: number) => `http://127.0.0.1:${port}`
  const ports = { direct: freePort(), nginx: freePort(), mirror: freePort(), mirrorShadow: freePort() }
  /** Live's and the shadow's port of one of our proxies, each its own. */
  const pair = () => ({ live: freePort(), shadow: freePort() })
  type Ours = { name: string; workers: string; variant: ShadowVariant | 'none' | 'slow' | 'down'; main?: string; live: number; shadow: number }
  const ours: Ours[] = []
  // The code before runs right after its counterpart of one worker, in
  // every round: the "no worse" target pairs the two round by round, and
  // background load then hits both alike.
  const before = (variant: 'none' | 'same'): Ours =>
    variant === 'none'
      ? { name: ROW.baselineNone, workers: '1', variant, main: baseline, ...pair() }
      : { name: 'before, shadow + diff, identical', workers: '1', variant, main: baseline, ...pair() }
  const paired = Boolean(baseline) && workers.includes('1')
  for (const w of workers) {
    ours.push({ name: ROW.none, workers: w, variant: 'none', ...pair() })
    if (paired && w === '1') ours.push(before('none'))
    for (const [variant, name] of SHADOWED) {
      ours.push({ name, workers: w, variant, ...pair() })
      if (paired && w === '1' && variant === 'same') ours.push(before('same'))
    }
  }
  if (baseline && !paired) ours.push(before('none'), before('same'))
  const degraded: Ours[] = []
  for (const w of workers) {
    degraded.push({ name: `${ROW.none} (alongside)`, workers: w, variant: 'none', ...pair() })
    degraded.push({ name: ROW.slow, workers: w, variant: 'slow', ...pair() })
    // Down: a port nothing listens on, so every connection is refused.
    degraded.push({ name: ROW.down, workers: w, variant: 'down', ...pair() })
  }
  const everyOurs = [...ours, ...degraded]
  const shadowsOf = (variant: string) => everyOurs.filter((o) => o.variant === variant).map((o) => o.shadow)
  const children: Subprocess[] = [
    startFleet(0, [ports.direct, ports.nginx, ports.mirror, ports.mirrorShadow, ...everyOurs.map((o) => o.live), ...shadowsOf('none'), ...references.map((r) => r.upstreams[0]!)]),
    startFleet(0, [...shadowsOf('same'), ...references.flatMap((r) => r.upstreams.slice(1))]),
    startFleet(0, shadowsOf('tenth'), 'tenth'),
    startFleet(0, shadowsOf('every'), 'every'),
    startFleet(2000, shadowsOf('slow')),
  ]
  let nginx: Nginx | undefined
  let accounting: AccountingCheck | undefined
  const rows: BenchRow[] = []
  const openRows: OpenLoopRow[] = []

  /** One run, kept and printed as `tag` (a round, a segment) with how much the hypervisor took meanwhile. */
  const run = async (target: Target, runSeconds: number, tag: string) => {
    const before = machineTicks()
    const r = await load(target.url, runSeconds, connections)
    const machine = { before, after: machineTicks() }
    target.runs.push(r)
    target.timeWait = Math.max(target.timeWait, timeWait(target.ports))
    print(`  ${tag}, ${label(target)}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms (${noiseText(machine)})`)
  }
  const target = (name: string, url: string, targetPorts: number[], workersOf?: string, proxy?: OurProxy): Target => ({
    name,
    workers: workersOf,
    url,
    ports: targetPorts,
    runs: [],
    proxy,
    timeWait: 0,
  })
  const label = (t: { name: string; workers?: string }) => (t.workers === undefined ? t.name : `${t.name} [workers ${t.workers}]`)

  try {
    await Promise.all(
      [
        ports.direct,
        ports.mirrorShadow,
        ...everyOurs.flatMap((o) => (o.variant === 'down' ? [o.live] : [o.live, o.shadow])),
        ...references.flatMap((r) => r.upstreams),
      ].map((port) =>
        waitForHttp(at(port)),
      ),
    )
    nginx = await startNginx(ports.nginx, ports.mirror, ports.mirrorShadow)
    const proxies = new Map<Ours, OurProxy>()
    for (const o of everyOurs) {
      const shadowUrl = o.variant === 'down' ? at(freePort()) : at(o.shadow)
      const settings: Record<string, string> = { ...extraEnv, ...(o.variant === 'none' ? { SVC_APP_SAMPLING_RATE: '0' } : {}) }
      if (workersSupported && o.main === undefined) settings.SVC_APP_WORKERS = o.workers
      const proxy = await startOurProxy(at(o.live), shadowUrl, settings, o.main)
      proxies.set(o, proxy)
      children.push(proxy.child)
    }
    for (const r of references) {
      children.push(startCpuRole([r.role, String(r.port), ...r.upstreams.map(at)]))
      await waitForHttp(at(r.port))
    }
    const main: Target[] = [
      target(ROW.direct, `${at(ports.direct)}/`, [ports.direct]),
      ...(nginx
        ? [target('nginx proxy_pass', nginx.proxyUrl, [ports.nginx]), target(ROW.mirror, nginx.mirrorUrl, [ports.mirror, ports.mirrorShadow])]
        : []),
      ...ours.map((o) => target(o.name, `${proxies.get(o)!.url}/`, [o.live, o.shadow], o.workers, proxies.get(o))),
      ...references.map((r) => target(r.name, `${at(r.port)}/`, r.upstreams)),
    ]
    print(
      `proxy benchmark: ${connections} connections, ${rounds} interleaved rounds of ${seconds} s after ${warmupSeconds} s of warm-up each, ${slowSeconds} s on the slow/down shadow, workers ${workers.join(', ')}`,
    )
    // Each target warmed on its own, so that every measured round is of a settled JIT; the cold figure is printed, not kept.
    const warmUp = async (t: Target) => {
      if (warmupSeconds <= 0) return
      const r = await load(t.url, warmupSeconds, connections)
      print(`  warm-up, ${label(t)}: ${r.rps.toFixed(0)} req/s over ${warmupSeconds} s`)
    }
    for (const t of main) await warmUp(t)
    for (let round = 1; round <= rounds; round++) {
      for (const t of main) await run(t, seconds, `round ${round}`)
    }
    rows.push(...main.map((t) => ({ name: t.name, workers: t.workers, result: median(t.runs), rounds: t.runs, timeWait: t.timeWait })))

    // Slow and down shadow: short segments alternating with the no-shadow
    // proxy, so that all three see the same background load; every other
    // segment in the reverse order, turned by one, so that none of them
    // always runs right after the same one, nor twice in a row where two
    // segments meet.
    const side = degraded.map((o) => target(o.name, `${proxies.get(o)!.url}/`, [o.live, o.shadow], o.workers, proxies.get(o)))
    const reversed = [...side].reverse()
    const backwards = [...reversed.slice(1), ...reversed.slice(0, 1)]
    const segments = Math.max(1, Math.round(slowSeconds / 5))
    const segmentSeconds = Math.max(1, Math.round(slowSeconds / segments))
    for (const t of side) await warmUp(t)
    for (let segment = 1; segment <= segments; segment++) {
      for (const t of segment % 2 === 1 ? side : backwards) await run(t, segmentSeconds, `segment ${segment}`)
    }
    for (const w of workers) {
      const of = side.filter((t) => t.workers === w)
      const baselineRun = median(of.find((t) => t.name.endsWith('(alongside)'))!.runs)
      for (const t of of.filter((t) => !t.name.endsWith('(alongside)'))) {
        const result = median(t.runs)
        const rss = rssPerProcessMb(t.proxy!.child.pid)
        const vs = result && baselineRun ? { p50: result.p50Ms / baselineRun.p50Ms, p99: result.p99Ms / baselineRun.p99Ms } : undefined
        const note = `${vsNoShadow(vs)}; ${rss.processes} process${rss.processes === 1 ? '' : 'es'}, after ${warmupSeconds + segments * segmentSeconds} s of load`
        rows.push({ name: t.name, workers: w, result, timeWait: t.timeWait, rssMb: rss.maxMb, processes: rss.processes, vsNoShadow: vs, note })
        print(`  ${label(t)}: ${result?.rps.toFixed(0)} req/s, p50 ${result?.p50Ms.toFixed(2)} ms, p99 ${result?.p99Ms.toFixed(2)} ms; ${note}; RSS ${rss.maxMb.toFixed(0)} MB`)
      }
    }

    // Open loop at half nginx + mirror's maximum: what each adds to direct's latency when nobody is saturated.
    const mirrorRps = rows.find((r) => r.name === ROW.mirror)?.result?.rps
    const rate = Math.floor(env('PROXY_BENCH_OPEN_RATE', mirrorRps !== undefined ? mirrorRps / 2 : 5000))
    const open = main.filter((t) => t.name === ROW.direct || t.name === ROW.mirror || (t.workers === most && SHADOWED.some(([, n]) => n === t.name)))
    const samples = new Map<Target, { p50: number[]; p99: number[]; dropped: number; errors: number }>(open.map((t) => [t, { p50: [], p99: [], dropped: 0, errors: 0 }]))
    print(`open loop at ${rate} req/s, ${openSeconds} s a run, ${rounds} rounds`)
    for (let round = 1; round <= rounds; round++) {
      for (const t of open) {
        const before = machineTicks()
        const r = await openLoop(t.url, rate, openSeconds, connections)
        const machine = { before, after: machineTicks() }
        const s = samples.get(t)!
        s.p50.push(r.p50Ms)
        s.p99.push(r.p99Ms)
        s.dropped += r.dropped
        s.errors += r.socketErrors + Object.entries(r.statuses).reduce((n, [status, count]) => n + (Number(status) >= 400 ? count : 0), 0)
        print(`  round ${round}, ${label(t)}: p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, ${r.completed} answered, ${r.dropped} dropped (${noiseText(machine)})`)
      }
    }
    const directOpen = samples.get(open[0]!)!
    for (const t of open) {
      const s = samples.get(t)!
      const p50 = mid(s.p50)
      const p99 = mid(s.p99)
      const isDirect = t.name === ROW.direct
      openRows.push({
        name: t.name,
        workers: t.workers,
        rate,
        p50Ms: p50,
        p99Ms: p99,
        ...(isDirect ? {} : { addedP50Ms: p50 - mid(directOpen.p50), addedP99Ms: p99 - mid(directOpen.p99) }),
        dropped: s.dropped,
        errors: s.errors,
      })
    }

    // At half the maximum rate: every request accounted for, exactly.
    const every = main.find((t) => t.name === ROW.every && t.workers === most)!
    const everyRps = rows.find((r) => r.name === ROW.every && r.workers === most)?.result?.rps ?? 2000
    accounting = await checkAccounting(every.proxy!, Math.floor(everyRps / 2), Math.min(seconds * 2, 10), connections)
    print(`  accounting at ${accounting.rate} req/s: sent ${accounting.sent}, received ${accounting.received}, compared ${accounting.compared} → ${accounting.exact ? 'exact' : 'MISMATCH'}`)
  } finally {
    await stopNginx(nginx)
    await Promise.all(children.map((child) => stop(child)))
  }

  const report: ProxyBenchReport = {
    date: new Date().toISOString(),
    machine: `${machineText()}, ${idleBefore}; during the run ${stealText(runStart, machineTicks())}`,
    rounds,
    warmupSeconds,
    rows,
    openLoop: openRows,
    accounting,
    targets: checkTargets(rows, openRows, most),
  }
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

const mid = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!

/** The run with the median throughput, with the median p50 and p99 of the rounds. */
function median(runs: LoadResult[]): LoadResult | undefined {
  if (runs.length === 0) return undefined
  const sorted = [...runs].sort((a, b) => a.rps - b.rps)
  const byRps = sorted[Math.floor((sorted.length - 1) / 2)]!
  return {
    ...byRps,
    p50Ms: mid(runs.map((r) => r.p50Ms)),
    p99Ms: mid(runs.map((r) => r.p99Ms)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  }
}

function vsNoShadow(vs: { p50: number; p99: number } | undefined): string {
  if (!vs) return ''
  const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(0)}%`
  return `p50 ${pct(vs.p50)}, p99 ${pct(vs.p99)} vs no shadowing`
}

function listOf(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

const loadText = () => loadavg().map((n) => n.toFixed(2)).join(' ')

/** What else used the machine during a run: the load average at its end and the share the hypervisor took. */
function noiseText(machine: { before: MachineTicks; after: MachineTicks }): string {
  return `load ${loadText()}, ${stealText(machine.before, machine.after)}`
}

/** CPU busy over one second (`/proc/stat`), the load average, and what a system call costs. */
async function machineBeforeText(): Promise<string> {
  const before = machineTicks()
  await Bun.sleep(1000)
  const after = machineTicks()
  const busy = `CPU ${(machineShares(before, after).busy * 100).toFixed(0)}% busy before the run, ${stealText(before, after)}`
  return `${busy}, load average ${loadText()}, ${systemCallText(machineSystemCallUs())}`
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

function table(header: string[], body: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)]
}

/** The report as readable tables. */
export function formatReport(report: ProxyBenchReport): string {
  const direct = report.rows.find((r) => r.name === ROW.direct)?.result?.rps
  const mirror = report.rows.find((r) => r.name === ROW.mirror)?.result?.rps
  const body = report.rows.map((row) => {
    const r = row.result
    return [
      row.name,
      row.workers ?? '',
      r ? r.rps.toFixed(0) : '-',
      r && direct ? `${(r.rps / direct).toFixed(2)}x` : '-',
      r && mirror ? `${(r.rps / mirror).toFixed(2)}x` : '-',
      r ? r.p50Ms.toFixed(2) : '-',
      r ? r.p99Ms.toFixed(2) : '-',
      r ? String(r.errors) : '-',
      Number.isNaN(row.timeWait) ? '?' : String(row.timeWait),
      row.rssMb === undefined ? '' : row.rssMb.toFixed(0),
      row.note ?? '',
    ]
  })
  const lines = [
    `${report.date} · ${report.machine} · load: ${report.rows[0]?.result?.tool ?? '?'} · median of ${report.rounds} interleaved rounds after ${report.warmupSeconds} s of warm-up each`,
    ...table(['scenario', 'workers', 'req/s', 'vs direct', 'vs nginx+mirror', 'p50 ms', 'p99 ms', 'errors', 'TIME_WAIT', 'RSS MB', 'note'], body),
  ]
  if (report.openLoop.length > 0) {
    lines.push('', `open loop at ${report.openLoop[0]!.rate} req/s (latency from when each request was due), median of ${report.rounds} rounds:`)
    lines.push(
      ...table(
        ['scenario', 'workers', 'p50 ms', 'p99 ms', 'added p50', 'added p99', 'dropped', 'errors'],
        report.openLoop.map((r) => [
          r.name,
          r.workers ?? '',
          r.p50Ms.toFixed(2),
          r.p99Ms.toFixed(2),
          r.addedP50Ms === undefined ? '' : `${r.addedP50Ms >= 0 ? '+' : ''}${r.addedP50Ms.toFixed(2)}`,
          r.addedP99Ms === undefined ? '' : `${r.addedP99Ms >= 0 ? '+' : ''}${r.addedP99Ms.toFixed(2)}`,
          String(r.dropped),
          String(r.errors),
        ]),
      ),
    )
  }
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
  if (report.targets.length > 0) {
    lines.push('', 'targets (not tests):')
    for (const t of report.targets) lines.push(`  ${t.met === undefined ? '?   ' : t.met ? 'met ' : 'MISS'} ${t.target}: ${t.measured}`)
  }
  return lines.join('\n')
}

if (import.meta.main) await runProxyBench()
