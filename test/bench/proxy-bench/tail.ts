/**
 * Where the open loop's tail comes from: our proxy, shadowing and diffing
 * every request, under the benchmark's open loop at a fixed rate, side by
 * side with direct to live in each round, and for each run of ours:
 *
 * - the slow requests (over direct's p99 + 3 ms, the target's bound)
 *   grouped by when they were due (`slow-clusters.ts`): a few large
 *   clusters are stalls, slow requests spread out are cost per request;
 * - each kind of thread of the proxy's processes (the JavaScript thread,
 *   fetch's `HTTP Client`, the collector's helpers...): CPU time, time
 *   spent runnable but waiting for a core (`/proc/<pid>/task/<tid>/schedstat`),
 *   and that wait per time it ran;
 * - the machine: how busy, and how much the hypervisor took (steal).
 *
 *   bun run test/bench/proxy-bench/tail.ts [rate=5000] [seconds=10] [rounds=3]
 *
 * `PROXY_TAIL_WORKERS` (default 1) is the proxy's SVC_APP_WORKERS,
 * `PROXY_TAIL_SHADOW=same|tenth|every` the shadow (`fleet.ts`),
 * `PROXY_TAIL_ENV=NAME=value,...` more settings of the proxy (or of the
 * runtime: `BUN_JSC_...`, `MIMALLOC_...`). What it found is in
 * docs/benchmarks/proxy.md (2026-11-27 03:41).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { machineShares, machineTicks } from '../api-bench/machine.ts'
import { SHADOW_VARIANTS, type ShadowVariant } from './fleet.ts'
import { load } from './load.ts'
import { openLoop } from './open-loop.ts'
import { freePort, processTree, startFleet, startOurProxy, stop, waitForHttp } from './processes.ts'
import { largestShare, slowClusters } from './slow-clusters.ts'

const rate = Number(process.argv[2] ?? 5000)
const seconds = Number(process.argv[3] ?? 10)
const rounds = Number(process.argv[4] ?? 3)
const workers = process.env.PROXY_TAIL_WORKERS ?? '1'
const variant = (process.env.PROXY_TAIL_SHADOW ?? 'same') as ShadowVariant
if (!SHADOW_VARIANTS.includes(variant)) throw new Error(`PROXY_TAIL_SHADOW must be one of ${SHADOW_VARIANTS.join(', ')}`)
const extraEnv = Object.fromEntries(
  (process.env.PROXY_TAIL_ENV ?? '')
    .split(',')
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
)
const CONNECTIONS = 64
/** The open-loop target's bound over direct's p99 (docs/proxy.md "Targets"). */
const TARGET_ADDED_P99_MS = 3

/** Run and run-queue time (ns) and times run, summed by thread name over a process and its workers. */
function threadTimes(pid: number): Map<string, { runNs: number; waitNs: number; slices: number }> {
  const byName = new Map<string, { runNs: number; waitNs: number; slices: number }>()
  for (const each of processTree(pid)) {
    let tids: string[]
    try {
      tids = readdirSync(`/proc/${each}/task`)
    } catch {
      continue // ended meanwhile
    }
    for (const tid of tids) {
      try {
        // The main thread is the JavaScript thread, whatever the process is called.
        const name = tid === String(each) ? 'JavaScript' : readFileSync(`/proc/${each}/task/${tid}/comm`, 'utf8').trim()
        const [runNs, waitNs, slices] = readFileSync(`/proc/${each}/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number)
        const sum = byName.get(name) ?? { runNs: 0, waitNs: 0, slices: 0 }
        sum.runNs += runNs!
        sum.waitNs += waitNs!
        sum.slices += slices!
        byName.set(name, sum)
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return byName
}

const live = freePort()
const shadow = freePort()
const fleets = [startFleet(0, [live]), startFleet(0, [shadow], variant)]
let proxy: Awaited<ReturnType<typeof startOurProxy>> | undefined
try {
  await waitForHttp(`http://127.0.0.1:${live}/`)
  await waitForHttp(`http://127.0.0.1:${shadow}/`)
  proxy = await startOurProxy(`http://127.0.0.1:${live}`, `http://127.0.0.1:${shadow}`, { SVC_APP_WORKERS: workers, ...extraEnv })
  console.log(`open loop at ${rate} req/s, ${seconds} s a run, ${rounds} rounds; our proxy with SVC_APP_WORKERS=${workers}, the ${variant} shadow`)
  await load(`${proxy.url}/`, 3, CONNECTIONS) // warm-up: connections, JIT
  const ms = (x: number) => x.toFixed(2)
  for (let round = 1; round <= rounds; round++) {
    const direct = await openLoop(`http://127.0.0.1:${live}/`, rate, seconds, CONNECTIONS)
    const threadsBefore = threadTimes(proxy.child.pid)
    const machineBefore = machineTicks()
    const ours = await openLoop(`${proxy.url}/`, rate, seconds, CONNECTIONS, true)
    const machine = machineShares(machineBefore, machineTicks())
    const threadsAfter = threadTimes(proxy.child.pid)
    const bound = direct.p99Ms + TARGET_ADDED_P99_MS
    const clusters = slowClusters(ours.requests, bound)
    const slow = clusters.reduce((n, c) => n + c.requests, 0)
    const largest = [...clusters].sort((a, b) => b.requests - a.requests)[0]
    console.log(
      `round ${round}: direct p99 ${ms(direct.p99Ms)} ms; ours p50 ${ms(ours.p50Ms)}, p99 ${ms(ours.p99Ms)} (+${ms(ours.p99Ms - direct.p99Ms)}), ` +
        `max ${ms(ours.maxMs)} ms; machine ${(machine.busy * 100).toFixed(0)} % busy, steal ${(machine.steal * 100).toFixed(1)} %`,
    )
    console.log(
      `  ${slow} of ${ours.requests.length} requests over ${ms(bound)} ms, in ${clusters.length} clusters; the 3 largest hold ` +
        `${(largestShare(clusters, 3) * 100).toFixed(0)} %` +
        (largest === undefined ? '' : `; the largest: ${largest.requests} requests due over ${ms(largest.toMs - largest.fromMs)} ms, up to ${ms(largest.maxLatencyMs)} ms`),
    )
    const rows = [...threadsAfter]
      .map(([name, after]) => {
        const before = threadsBefore.get(name) ?? { runNs: 0, waitNs: 0, slices: 0 }
        return { name, runMs: (after.runNs - before.runNs) / 1e6, waitMs: (after.waitNs - before.waitNs) / 1e6, slices: after.slices - before.slices }
      })
      .filter((t) => t.runMs >= 10)
      .sort((a, b) => b.runMs - a.runMs)
    for (const t of rows) {
      console.log(
        `  ${t.name.padEnd(14)} ran ${t.runMs.toFixed(0).padStart(5)} ms, waited for a core ${t.waitMs.toFixed(0).padStart(5)} ms ` +
          `(${((t.waitMs / Math.max(1, t.slices)) * 1000).toFixed(0)} µs per time it ran)`,
      )
    }
  }
} finally {
  await stop(proxy?.child)
  await Promise.all(fleets.map((fleet) => stop(fleet)))
}
