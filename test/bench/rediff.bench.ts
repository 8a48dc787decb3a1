/**
 * Preview and re-diff throughput (docs/insights.md "Preview and re-diff"),
 * through the API as a process of its own on PostgreSQL: 10,000 stored
 * captures with 2 KB bodies; previewDiffConfig over all of them (wall
 * time, 5 runs after a warm-up), the latency of other requests while
 * previews run against the same requests without (a prober issuing
 * getGate one after another), and a re-diff job of the same captures while
 * captures keep arriving (captures/s from the job's own times, and the
 * ingest rate meanwhile). Targets, printed, never an exit code: a preview
 * of 10,000 under 3 s, other requests' p99 under 50 ms during it, a
 * re-diff at 2,000 captures/s or more.
 *
 * Knobs: REDIFF_BENCH_CAPTURES (10000), SVC_TEST_PG_URL (the server to
 * make a database on, as the tests), REDIFF_BENCH_NICE (a niceness for the
 * API's main thread, such as -10, applied with renice: on a machine other
 * work shares, it keeps the scheduler's delays out of the latencies, so
 * that they show what the API's own event loop does).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { cpuSeconds, freePort, runMigrator, startApiProcess, stopApiProcess, type ApiProcess } from './api-bench/api-process.ts'
import { loadNow, machineLines } from './api-bench/machine.ts'
import { int, ms, textTable } from './api-bench/text-table.ts'

const CAPTURES = Number(process.env.REDIFF_BENCH_CAPTURES ?? 10_000)
const NICE = process.env.REDIFF_BENCH_NICE
const ADMIN_URL = process.env.SVC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const KEY = 'rediff-bench-key-0123456789'
const PAD = 'lorem ipsum dolor sit amet '.repeat(60).slice(0, 1500)

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64')
}

/** A capture of about 2 KB per body: half differ in a timestamp, a tenth in a price. */
function capture(i: number, at: string) {
  const live = { id: i, sku: `sku-${i % 500}`, price: 10 + (i % 7), updated_at: `2026-11-26T10:00:${String(i % 60).padStart(2, '0')}Z`, items: [{ n: 1 }, { n: 2 }], pad: PAD }
  const shadow = { ...live, price: i % 10 === 0 ? live.price + 1 : live.price, updated_at: i % 2 === 0 ? '2026-11-26T10:01:00Z' : live.updated_at }
  const json = { 'Content-Type': ['application/json'] }
  return {
    method: 'GET',
    path: `/v1/items/${i}`,
    headers: { Accept: ['application/json'] },
    body: '',
    created_at: at,
    live_response: { status_code: 200, headers: json, body: b64(live), latency_ms: 10, created_at: at },
    shadow_response: { status_code: 200, headers: json, body: b64(shadow), latency_ms: 12, created_at: at },
  }
}

function call(api: ApiProcess, method: string, path: string, body?: unknown) {
  return fetch(api.url + path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!
}

/** getGate one after another until `until` resolves; each latency in ms. */
async function probe(api: ApiProcess, gate: string, until: Promise<unknown>): Promise<number[]> {
  let done = false
  void until.finally(() => (done = true))
  const latencies: number[] = []
  while (!done) {
    const started = performance.now()
    await (await call(api, 'GET', `/gates/${gate}`)).arrayBuffer()
    latencies.push(performance.now() - started)
    await Bun.sleep(5)
  }
  return latencies.sort((a, b) => a - b)
}

/** The API's largest event-loop lag since the previous scrape (bun_event_loop_lag_max_seconds), in ms. */
async function lagMax(api: ApiProcess): Promise<number> {
  const text = await (await fetch(`${api.url}/metrics`)).text()
  return Number(/^bun_event_loop_lag_max_seconds (\S+)$/m.exec(text)?.[1] ?? NaN) * 1000
}

async function ingest(api: ApiProcess, gate: string, from: number, count: number, concurrency: number, at: () => string) {
  let next = from
  const worker = async () => {
    while (next < from + count) {
      const i = next++
      const res = await call(api, 'POST', `/gates/${gate}/requests`, capture(i, at()))
      if (res.status !== 201) throw new Error(`createRequest answered ${res.status}: ${await res.text()}`)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

export async function runRediffBench(options: { printMachine?: boolean } = {}): Promise<void> {
  if (options.printMachine !== false) for (const line of machineLines()) console.log(line)
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} })
  const name = `svc_bench_rediff_${randomBytes(4).toString('hex')}`
  await admin.unsafe(`CREATE DATABASE ${name}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  const databaseUrl = url.toString()
  let api: ApiProcess | undefined
  try {
    await runMigrator(databaseUrl)
    const log = join(mkdtempSync(join(tmpdir(), 'svc-rediff-bench-')), 'api.log')
    api = await startApiProcess(
      { SVC_APP_DATABASE_URL: databaseUrl, SVC_APP_API_KEY: KEY, SVC_APP_RATE_LIMIT: '10000000', SVC_APP_LOG_LEVEL: 'warn', SVC_APP_APP_ENV: 'production' },
      freePort(),
      log,
    )
    if (NICE !== undefined) {
      const reniced = Bun.spawnSync(['renice', '-n', NICE, '-p', String(api.pid)])
      console.log(`API main thread niced to ${NICE}: ${reniced.exitCode === 0 ? 'done' : reniced.stderr.toString().trim()}`)
    }
    const db = postgres(databaseUrl, { max: 1, onnotice: () => {} })
    // CPU so far of the API's main thread (where its JavaScript runs), the whole API, and this database's backends.
    const cpu = async () => {
      const backends = await db<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`
      return {
        main: cpuSeconds(api!.pid, api!.pid),
        api: cpuSeconds(api!.pid),
        db: backends.reduce((sum, { pid }) => sum + (cpuSeconds(pid) || 0), 0),
      }
    }
    const perCapture = (from: Awaited<ReturnType<typeof cpu>>, to: Awaited<ReturnType<typeof cpu>>, captures: number) =>
      `API ${((1000 * (to.api - from.api)) / captures).toFixed(3)} ms (main thread ${((1000 * (to.main - from.main)) / captures).toFixed(3)}) + PostgreSQL ${((1000 * (to.db - from.db)) / captures).toFixed(3)} ms`
    const gate = ((await (await call(api, 'POST', '/gates', { name: 'bench', live_url: 'http://l:1', shadow_url: 'http://s:1' })).json()) as { data: { id: string } }).data.id
    const base = Date.now() - 3_600_000
    let seeded = 0
    await ingest(api, gate, 0, CAPTURES, 32, () => new Date(base + seeded++ * 100).toISOString())
    console.log(`seeded ${int(CAPTURES)} captures with 2 KB bodies through createRequest`)

    const candidate = { ignored_fields: ['body.updated_at'], included_fields: [], float_tolerance: 0, sort_arrays: false }
    const preview = async () => {
      const started = performance.now()
      const res = await call(api!, 'POST', `/gates/${gate}/diff-config/preview`, { diff_config: candidate, limit: 10_000 })
      const body = (await res.json()) as { data: { examined: number; silenced: number } }
      if (res.status !== 200) throw new Error(`preview answered ${res.status}: ${JSON.stringify(body)}`)
      return { ms: performance.now() - started, ...body.data }
    }
    await preview()
    const runs = []
    const previewCpuFrom = await cpu()
    for (let i = 0; i < 5; i++) runs.push(await preview())
    const previewCpu = perCapture(previewCpuFrom, await cpu(), 5 * CAPTURES)
    const times = runs.map((r) => r.ms).sort((a, b) => a - b)

    await lagMax(api)
    const idle = await probe(api, gate, Bun.sleep(6_000))
    const idleLag = await lagMax(api)
    const busy = await probe(api, gate, (async () => { for (let i = 0; i < 3; i++) await preview() })())
    const busyLag = await lagMax(api)

    const next = { ...candidate, float_tolerance: 0.5 }
    if ((await call(api, 'PATCH', `/gates/${gate}`, { diff_config: next })).status !== 200) throw new Error('updateGate failed')
    const rediffCpuFrom = await cpu()
    const job = ((await (await call(api, 'POST', `/gates/${gate}/rediff`, {})).json()) as { data: { id: string } }).data
    let ingestDone = 0
    let stopIngest = false
    const ingestStarted = performance.now()
    const loader = (async () => {
      let i = CAPTURES
      while (!stopIngest) {
        await Promise.all(Array.from({ length: 8 }, () => call(api!, 'POST', `/gates/${gate}/requests`, capture(i++, new Date().toISOString())).then((r) => r.arrayBuffer())))
        ingestDone += 8
      }
    })()
    let finished: { state: string; done: number; total: number; started_at: string; finished_at: string }
    for (;;) {
      finished = ((await (await call(api, 'GET', `/gates/${gate}/jobs/${job.id}`)).json()) as { data: typeof finished }).data
      if (['done', 'failed', 'cancelled'].includes(finished.state)) break
      await Bun.sleep(100)
    }
    const rediffCpuTo = await cpu()
    stopIngest = true
    await loader
    const ingestSeconds = (performance.now() - ingestStarted) / 1000
    const jobSeconds = (Date.parse(finished.finished_at) - Date.parse(finished.started_at)) / 1000

    console.log('')
    console.log(
      textTable(
        [
          ['measure', 'value', 'target'],
          ['preview of 10,000 captures: median of 5', ms(percentile(times, 0.5)), '< 3 s'],
          ['preview: slowest of 5', ms(times.at(-1)!), '< 3 s'],
          ['preview throughput', `${int(CAPTURES / (percentile(times, 0.5) / 1000))} captures/s`, ''],
          ['preview CPU per capture', previewCpu, ''],
          ['getGate without previews: p50 / p99', `${ms(percentile(idle, 0.5))} / ${ms(percentile(idle, 0.99))} (${idle.length} requests)`, ''],
          ['getGate during previews: p50 / p99', `${ms(percentile(busy, 0.5))} / ${ms(percentile(busy, 0.99))} (${busy.length} requests)`, 'p99 < 50 ms'],
          ['API event-loop lag, max: without / during previews', `${ms(idleLag)} / ${ms(busyLag)}`, ''],
          ['re-diff job', `${finished.state}, ${int(finished.done)} of ${int(finished.total)} in ${jobSeconds.toFixed(1)} s`, ''],
          ['re-diff throughput', `${int(finished.done / jobSeconds)} captures/s`, '>= 2,000/s'],
          ['re-diff CPU per capture, ingest included', perCapture(rediffCpuFrom, rediffCpuTo, finished.done), ''],
          ['ingest meanwhile', `${int(ingestDone / ingestSeconds)} captures/s (8 at a time)`, ''],
        ],
        new Set([1]),
      ).join('\n'),
    )
    console.log(`preview: silenced ${int(runs[0]!.silenced)} of ${int(runs[0]!.examined)} examined; load at the end ${loadNow()}`)
    await db.end()
  } finally {
    await stopApiProcess(api)
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
}

if (import.meta.main) {
  await runRediffBench()
  process.exit(0)
}
