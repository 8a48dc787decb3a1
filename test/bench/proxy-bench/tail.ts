/**
 * Where the open loop's tail comes from: our proxy, shadowing and diffing
 * every request, under the benchmark's open loop at a fixed rate, side by
 * side with direct to live in each round, and for each run of ours:
 *
 * - the slow requests (over direct's p99 + 3 ms, the target's bound)
 *   grouped by when they were due (`slow-clusters.ts`): a few large
 *   clusters are stalls, slow requests spread out are cost per request;
 * - each kind of thread of the proxy's processes (the JavaScript thread,
 *   with workers the primary's among them; fetch's `HTTP Client`; the
 *   collector's helpers...): CPU time, time spent runnable but waiting for
 *   a core (`/proc/<pid>/task/<tid>/schedstat`), and that wait per time it
 *   ran;
 * - the machine: how busy, and how much the hypervisor took (steal).
 *
 *   bun run test/bench/proxy-bench/tail.ts [rate=5000] [seconds=10] [rounds=3]
 *
 * `PROXY_TAIL_WORKERS` (default 1) is the proxy's SVC_APP_WORKERS,
 * `PROXY_TAIL_SHADOW=same|tenth|every` the shadow (`fleet.ts`),
 * `PROXY_TAIL_ENV=NAME=value,...` more settings of the proxy (or of the
 * runtime: `BUN_JSC_...`, `MIMALLOC_...`). `PROXY_TAIL_REFERENCE=serve-fetch`
 * (or another of `cpu.ts`'s references that shadow: `serve-http1`,
 * `minimal-shadow`...) runs that reference too, each round between direct
 * and ours, on the same upstreams: what a proxy of our shape without our
 * pipeline adds on the same machine in the same minute. What it found:
 * docs/proxy.md "The open loop's tail".
 */
import { spawn, type Subprocess } from 'bun'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { machineShares, machineTicks, stealText } from '../api-bench/machine.ts'
import { envPairs } from './env-pairs.ts'
import { SHADOW_VARIANTS, type ShadowVariant } from './fleet.ts'
import { load } from './load.ts'
import { openLoop, timedOpenLoop } from './open-loop.ts'
import { freePort, processTree, startFleet, startOurProxy, stop, waitForHttp } from './processes.ts'
import { largestClusters, largestShare, slowClusters, slowCount } from './slow-clusters.ts'
import { threadsOf } from './threads.ts'

const rate = Number(process.argv[2] ?? 5000)
const seconds = Number(process.argv[3] ?? 10)
const rounds = Number(process.argv[4] ?? 3)
const workers = process.env.PROXY_TAIL_WORKERS ?? '1'
const variant = (process.env.PROXY_TAIL_SHADOW ?? 'same') as ShadowVariant
if (!SHADOW_VARIANTS.includes(variant)) throw new Error(`PROXY_TAIL_SHADOW must be one of ${SHADOW_VARIANTS.join(', ')}`)
const extraEnv = envPairs(process.env.PROXY_TAIL_ENV)
const referenceRole = process.env.PROXY_TAIL_REFERENCE
/** The references' roles that take `<port> <live> <shadow>` (`cpu.ts`). */
const SHADOWING_REFERENCES = ['minimal-shadow', 'raw-shadow', 'raw-http1', 'serve-http1', 'serve-fetch']
if (referenceRole !== undefined && !SHADOWING_REFERENCES.includes(referenceRole)) {
  throw new Error(`PROXY_TAIL_REFERENCE must be one of ${SHADOWING_REFERENCES.join(', ')}`)
}
const CPU_TS = resolve(import.meta.dir, 'cpu.ts')
const CONNECTIONS = 64
/** The open-loop target's bound over direct's p99 (docs/proxy.md "Targets", there with SVC_APP_WORKERS=auto). */
const TARGET_ADDED_P99_MS = 3
/** Threads that ran less than this in a run are left out of its lines: JIT and warm-up threads that woke a few times. */
const LISTED_RUN_MS = 10

interface ThreadTime {
  readonly name: string
  readonly runNs: number
  readonly waitNs: number
  readonly slices: number
}

/** Each thread's run and run-queue time (ns) and times run so far, over a process and its workers, by `pid/tid`. */
function threadTimes(pid: number): Map<string, ThreadTime> {
  const times = new Map<string, ThreadTime>()
  for (const each of processTree(pid)) {
    for (const { tid, name } of threadsOf(each)) {
      try {
        const [runNs, waitNs, slices] = readFileSync(`/proc/${each}/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number)
        times.set(`${each}/${tid}`, { name, runNs: runNs!, waitNs: waitNs!, slices: slices! })
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return times
}

/**
 * What each kind of thread did between two readings, summed over the
 * threads alive at both: a thread or worker that ended or began in
 * between is left out rather than read as a negative figure.
 */
function threadDeltas(before: Map<string, ThreadTime>, after: Map<string, ThreadTime>): { name: string; runMs: number; waitMs: number; slices: number }[] {
  const byName = new Map<string, { name: string; runMs: number; waitMs: number; slices: number }>()
  for (const [key, end] of after) {
    const start = before.get(key)
    if (start === undefined) continue
    const sum = byName.get(end.name) ?? { name: end.name, runMs: 0, waitMs: 0, slices: 0 }
    sum.runMs += (end.runNs - start.runNs) / 1e6
    sum.waitMs += (end.waitNs - start.waitNs) / 1e6
    sum.slices += end.slices - start.slices
    byName.set(end.name, sum)
  }
  return [...byName.values()].sort((a, b) => b.runMs - a.runMs)
}

const live = freePort()
const shadow = freePort()
const fleets = [startFleet(0, [live]), startFleet(0, [shadow], variant)]
let proxy: Awaited<ReturnType<typeof startOurProxy>> | undefined
let reference: { child: Subprocess; url: string } | undefined
const ms = (x: number) => x.toFixed(2)
try {
  await waitForHttp(`http://127.0.0.1:${live}/`)
  await waitForHttp(`http://127.0.0.1:${shadow}/`)
  proxy = await startOurProxy(`http://127.0.0.1:${live}`, `http://127.0.0.1:${shadow}`, { SVC_APP_WORKERS: workers, ...extraEnv })
  if (referenceRole !== undefined) {
    const port = freePort()
    const args = [String(port), `http://127.0.0.1:${live}`, `http://127.0.0.1:${shadow}`]
    reference = { child: spawn(['bun', 'run', CPU_TS, referenceRole, ...args], { stdout: 'ignore', stderr: 'inherit' }), url: `http://127.0.0.1:${port}/` }
    await waitForHttp(reference.url)
    await load(reference.url, 3, CONNECTIONS)
  }
  console.log(`open loop at ${rate} req/s, ${seconds} s a run, ${rounds} rounds; our proxy with SVC_APP_WORKERS=${workers}, the ${variant} shadow`)
  await load(`${proxy.url}/`, 3, CONNECTIONS) // warm-up: connections, JIT
  for (let round = 1; round <= rounds; round++) {
    const direct = await openLoop(`http://127.0.0.1:${live}/`, rate, seconds, CONNECTIONS)
    const bound = direct.p99Ms + TARGET_ADDED_P99_MS
    if (reference !== undefined) {
      const r = await timedOpenLoop(reference.url, rate, seconds, CONNECTIONS)
      console.log(
        `round ${round}: ${referenceRole} p50 ${ms(r.p50Ms)}, p99 ${ms(r.p99Ms)} (+${ms(r.p99Ms - direct.p99Ms)}), max ${ms(r.maxMs)} ms; ` +
          `${slowCount(slowClusters(r.requests, bound))} requests over ${ms(bound)} ms`,
      )
    }
    const threadsBefore = threadTimes(proxy.child.pid)
    const machineBefore = machineTicks()
    const ours = await timedOpenLoop(`${proxy.url}/`, rate, seconds, CONNECTIONS)
    const machineAfter = machineTicks()
    const threads = threadDeltas(threadsBefore, threadTimes(proxy.child.pid))
    const failed = Object.entries(ours.statuses).reduce((n, [status, count]) => n + (Number(status) >= 400 ? count : 0), 0)
    console.log(
      `round ${round}: direct p99 ${ms(direct.p99Ms)} ms; ours p50 ${ms(ours.p50Ms)}, p99 ${ms(ours.p99Ms)} (+${ms(ours.p99Ms - direct.p99Ms)}), ` +
        `max ${ms(ours.maxMs)} ms, ${ours.dropped} dropped, ${failed} answered 4xx/5xx, ${ours.socketErrors} socket errors; ` +
        `machine ${(machineShares(machineBefore, machineAfter).busy * 100).toFixed(0)} % busy, ${stealText(machineBefore, machineAfter)}`,
    )
    const clusters = slowClusters(ours.requests, bound)
    const largest = largestClusters(clusters, 1)[0]
    console.log(
      `  ${slowCount(clusters)} of ${ours.requests.length} requests over ${ms(bound)} ms, in ${clusters.length} clusters; the 3 largest hold ` +
        `${(largestShare(clusters, 3) * 100).toFixed(0)} %` +
        (largest === undefined ? '' : `; the largest: ${largest.requests} requests due over ${ms(largest.toMs - largest.fromMs)} ms, up to ${ms(largest.maxLatencyMs)} ms`),
    )
    for (const t of threads.filter((t) => t.runMs >= LISTED_RUN_MS)) {
      console.log(
        `  ${t.name.padEnd(15)} ran ${t.runMs.toFixed(0).padStart(5)} ms, waited for a core ${t.waitMs.toFixed(0).padStart(5)} ms ` +
          `(${((t.waitMs / Math.max(1, t.slices)) * 1000).toFixed(0)} µs per time it ran)`,
      )
    }
  }
} finally {
  await stop(proxy?.child)
  await stop(reference?.child)
  await Promise.all(fleets.map((fleet) => stop(fleet)))
}
