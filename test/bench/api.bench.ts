/**
 * The API's benchmark (docs/benchmarks/api.md). Run alone with
 * `bun run test/bench/api.bench.ts`, or call runApiBench() from the bench
 * index. Targets, not tests: it prints target / measured / met and never
 * fails on a miss.
 *
 * 1. A fresh PostgreSQL database (created here, dropped at the end),
 *    migrated by `bun run src/main.ts migrate`.
 * 2. Seeded with SQL: one gate with API_BENCH_ROWS captures spread over the
 *    last 24 h and API_BENCH_GATES other gates, then rebuildRollups
 *    (api-bench/seed.ts).
 * 3. The API started as its own process, `bun run src/main.ts api`, so the
 *    load generators never share its event loop.
 * 4. Ingest into the big gate: createRequest with 2 KB JSON bodies, base64,
 *    no `diff` (the API computes it), 20% of shadows differing from live in
 *    ~1% of their leaves; first a closed loop (wrk when installed, else
 *    api-bench/load-generator.ts) for the sustained rate, then open loops
 *    at the target rate and at half the sustained rate for their latency
 *    (counted from when each request was due, so queueing shows).
 * 5. Reads on the gate, now above 1,000,000 captures in the last 24 h:
 *    listRequests (first page, with and without filters), getGate,
 *    listGates, getGlobalStats, getRequest; p50 and p95 over HTTP.
 * 6. The API's peak RSS (VmHWM) after ingest and at the end.
 *
 * API settings differing from the defaults, and why:
 *   SVC_APP_RATE_LIMIT=100000000   the default (1000/min per client IP) would
 *                                  answer 429 to the load generator within a second
 *   SVC_APP_APP_ENV=production     so logging is info/json, as deployed
 *                                  (development logs at debug, as text)
 *   logs go to a file (stdout/stderr of the API process), not a terminal
 *
 * Environment knobs (defaults keep the run under ~5 minutes):
 *   API_BENCH_ROWS             captures seeded in the big gate          (1000000)
 *   API_BENCH_GATES            other gates, for listGates               (300)
 *   API_BENCH_SEED_BODY_BYTES  stored live/shadow body of seeded rows   (128; 2048 for a
 *                              full-size payload table, ~2-3 min more here)
 *   API_BENCH_SECONDS          closed-loop ingest run                   (20)
 *   API_BENCH_CONNECTIONS      client connections                       (32)
 *   API_BENCH_RATE             open-loop offered rate, captures/s       (2000)
 *   API_BENCH_RATE_SECONDS     open-loop run                            (15)
 *   API_BENCH_LOG_LEVEL        the API's SVC_APP_LOG_LEVEL              (info)
 *   API_BENCH_READ_SAMPLES     samples per read case                    (40)
 *   API_BENCH_KEEP_LOG=1       keep the API's log file
 *   API_BENCH_WORKERS          the API's SVC_APP_WORKERS (`auto`: one per core;
 *                              its CPU is then counted over the primary and its workers) (1)
 *   API_BENCH_DURABLE_CAPTURES=1  the API with SVC_APP_DATABASE_DURABLE_CAPTURES=true
 *                              (capture inserts wait for their WAL flush), to
 *                              measure what durability costs
 *   API_BENCH_CPU_PROF=<dir>   run the API under Bun's CPU profiler (`--cpu-prof`,
 *                              `--cpu-prof-md`), profile written to <dir> on exit
 *   API_BENCH_BASELINE_DIR=<dir>  also compare ingest CPU per capture with the
 *                              checkout in <dir>, in turns (api-bench/ingest-compare.ts;
 *                              a second database seeded with as many rows)
 *   API_BENCH_COMPARE_ROUNDS   rounds of that comparison                (3)
 *   API_BENCH_COMPARE_SECONDS  closed-loop seconds of each side a round (15)
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, type TestDatabase } from '../support/database.ts'
import {
  freePort,
  runMigrator,
  startApiProcess,
  stopApiProcess,
  treeCpuSeconds,
  treeMemoryMb,
  type ApiProcess,
} from './api-bench/api-process.ts'
import { makeCaptureBodies } from './api-bench/capture-bodies.ts'
import { closedLoop, fixedRate, type IngestTarget, type LoadReport } from './api-bench/ingest-load.ts'
import { loadNow, machineLines, machineShares, machineTicks } from './api-bench/machine.ts'
import { readCases } from './api-bench/read-cases.ts'
import { backendCpuBetween, sampleBackends } from './api-bench/postgres-cpu.ts'
import { measureReads } from './api-bench/read-latency.ts'
import { compareIngest, printComparison, type CompareResult } from './api-bench/ingest-compare.ts'
import { errorsText, printResult, TARGET_RATE, targets, type ApiBenchResult, type IngestRun } from './api-bench/report.ts'
import { seedCaptures } from './api-bench/seed.ts'
import { int, ms } from './api-bench/text-table.ts'

export type { ApiBenchResult, ApiBenchTarget, IngestRun } from './api-bench/report.ts'

export interface ApiBenchOptions {
  /** Where lines go. @default console.log */
  readonly print?: (line: string) => void
  /** Knobs (see the file's comment). @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Print the machine and date first (the bench index prints them itself). @default true */
  readonly printMachine?: boolean
}

export async function runApiBench(options: ApiBenchOptions = {}): Promise<ApiBenchResult> {
  const print = options.print ?? console.log
  const env = options.env ?? process.env
  const knob = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback)
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name}: ${JSON.stringify(env[name])} is not a number`)
    return value
  }
  const rows = knob('API_BENCH_ROWS', 1_000_000)
  const otherGates = knob('API_BENCH_GATES', 300)
  const seedBodyBytes = knob('API_BENCH_SEED_BODY_BYTES', 128)
  const seconds = knob('API_BENCH_SECONDS', 20)
  const connections = knob('API_BENCH_CONNECTIONS', 32)
  const rate = knob('API_BENCH_RATE', TARGET_RATE)
  const rateSeconds = knob('API_BENCH_RATE_SECONDS', 15)
  const readSamples = knob('API_BENCH_READ_SAMPLES', 40)
  const logLevel = env.API_BENCH_LOG_LEVEL ?? 'info'
  const durableCaptures = env.API_BENCH_DURABLE_CAPTURES === '1'
  const started = performance.now()
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`

  if (options.printMachine !== false) for (const line of machineLines()) print(line)
  print('')
  print(`API benchmark: ${int(rows)} captures in one gate + ${otherGates} gates; ingest ${seconds} s closed loop ` +
    `(${connections} connections) and ${rateSeconds} s at ${int(rate)}/s; API log level ${logLevel}; ` +
    `SVC_APP_WORKERS=${env.API_BENCH_WORKERS ?? '1'}` +
    (durableCaptures ? '; durable captures (synchronous commit)' : ''))

  let database: TestDatabase | undefined
  let api: ApiProcess | undefined
  const logFile = join(tmpdir(), `api-bench-${process.pid}-${Date.now()}.log`)
  try {
    database = await createTestDatabase('postgres', { migrate: false, pool: { max: 2 } })
    await runMigrator(database.url)
    const [pg] = await database.db.sql<{ version: string; shared_buffers: string }[]>`
      SELECT current_setting('server_version') AS version, current_setting('shared_buffers') AS shared_buffers`
    print(`[${elapsed()}] database ${new URL(database.url).pathname.slice(1)} migrated (PostgreSQL ${pg!.version}, ` +
      `shared_buffers ${pg!.shared_buffers}); seeding...`)
    const seed = await seedCaptures(database.db.sql, {
      rows,
      otherGates,
      rowsPerOtherGate: 20,
      bodyBytes: seedBodyBytes,
      onProgress: (step) => print(`[${elapsed()}]   ${step}`),
    })
    print(`[${elapsed()}] seeded in ${(seed.ms / 1000).toFixed(0)} s: requests ${mb(seed.requestsBytes)}, ` +
      `request_payloads ${mb(seed.payloadsBytes)}; of which the insight backfill ${int(seed.backfill.captures)} captures in ` +
      `${(seed.backfill.ms / 1000).toFixed(1)} s (${((seed.backfill.ms / Math.max(1, seed.backfill.captures)) * 1000).toFixed(0)} s per million)`)

    const apiKey = `bench-${randomBytes(16).toString('hex')}`
    const apiEnv = {
      SVC_APP_API_KEY: apiKey,
      SVC_APP_RATE_LIMIT: '100000000',
      SVC_APP_APP_ENV: 'production',
      SVC_APP_LOG_LEVEL: logLevel,
      SVC_APP_LOG_FORMAT: 'json',
      SVC_APP_DATABASE_DURABLE_CAPTURES: String(durableCaptures),
      SVC_APP_WORKERS: env.API_BENCH_WORKERS ?? '1',
    }
    api = await startApiProcess(
      { ...apiEnv, SVC_APP_DATABASE_URL: database.url },
      freePort(),
      logFile,
      env.API_BENCH_CPU_PROF,
    )
    print(`[${elapsed()}] API up (pid ${api.pid}, ${api.url}), RSS ${treeMemoryMb(api.pid).current.toFixed(0)} MB`)
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }
    // A realistic gate configuration: one ignored and one redacted body field.
    const gatePatch = {
      diff_config: { ignored_fields: ['body.meta.request_id'], included_fields: [], float_tolerance: 0, sort_arrays: false },
      redacted_fields: ['body.data.#.email'],
    }
    const patched = await fetch(`${api.url}/gates/${seed.bigGateId}`, { method: 'PATCH', headers, body: JSON.stringify(gatePatch) })
    if (patched.status !== 200) throw new Error(`updateGate answered ${patched.status}: ${await patched.text()}`)

    const captures = makeCaptureBodies({ count: 256, diffShare: 0.2, bytes: 2048 })
    print(`[${elapsed()}] ${captures.bodies.length} distinct createRequest bodies, ${int(captures.meanBytes)} bytes each ` +
      `on average, ${captures.withDiff} with a differing shadow`)
    const target: IngestTarget = {
      host: '127.0.0.1',
      port: api.port,
      path: `/gates/${seed.bigGateId}/requests`,
      apiKey,
      bodies: captures.bodies,
    }
    const storedBefore = await storedCount(database, seed.bigGateId)
    const ingest: IngestRun[] = []
    const measure = async (label: string, tool: string | undefined, run: () => Promise<LoadReport & { tool?: string }>) => {
      const pg0 = await sampleBackends(database!.db.sql)
      const cpu0 = treeCpuSeconds(api!.pid)
      const main0 = treeCpuSeconds(api!.pid, true)
      const machine0 = machineTicks()
      const t0 = performance.now()
      const report = await run()
      const wall = (performance.now() - t0) / 1000
      const machine1 = machineTicks()
      const apiCpu = treeCpuSeconds(api!.pid) - cpu0
      const mainCpu = treeCpuSeconds(api!.pid, true) - main0
      const postgresCpu = backendCpuBetween(pg0, await sampleBackends(database!.db.sql))
      const result: IngestRun = {
        ...report,
        label,
        tool: report.tool ?? tool ?? '',
        capturesPerSecond: (report.statuses['201'] ?? 0) / report.seconds,
        apiCores: apiCpu / wall,
        apiMainThreadCores: mainCpu / wall,
        postgresCores: postgresCpu / wall,
        machineBusy: machineShares(machine0, machine1).busy,
      }
      print(`[${elapsed()}]   ${label}: ${int(result.capturesPerSecond)} captures/s, p50 ${ms(result.p50Ms)}, ` +
        `p99 ${ms(result.p99Ms)}, ${errorsText(result)}, API ${result.apiCores.toFixed(2)} cores (JS thread ${result.apiMainThreadCores.toFixed(2)}), PostgreSQL ${result.postgresCores.toFixed(2)} cores, machine ${(result.machineBusy * 100).toFixed(0)}% busy, ` +
        `load ${loadNow()}`)
      return result
    }
    print(`[${elapsed()}] ingest...`)
    const warmUp = await measure('warm-up (3 s, not reported)', undefined, () => closedLoop(target, { seconds: 3, connections }))
    ingest.push(await measure(`closed loop, ${connections} connections, ${seconds} s`, undefined, () =>
      closedLoop(target, { seconds, connections })))
    ingest.push(await measure(`open loop at ${int(rate)}/s, ${rateSeconds} s`, 'bun load-generator', () =>
      fixedRate(target, rate, rateSeconds, Math.max(connections, 64))))
    // Latency below saturation: at half the sustained rate just measured.
    const halfRate = Math.max(1, Math.round(ingest[0]!.capturesPerSecond / 2))
    ingest.push(await measure(`open loop at ${int(halfRate)}/s (half the sustained rate), ${rateSeconds} s`, 'bun load-generator', () =>
      fixedRate(target, halfRate, rateSeconds, Math.max(connections, 64))))
    const peakAfterIngest = treeMemoryMb(api.pid).peak
    const storedAfter = await storedCount(database, seed.bigGateId)
    const created = [warmUp, ...ingest].reduce((sum, r) => sum + (r.statuses['201'] ?? 0), 0)
    // wrk stops without waiting for the requests in flight: those are stored but never counted as 201s.
    print(`[${elapsed()}]   stored ${int(storedAfter - storedBefore)} captures for ${int(created)} 201 answers counted ` +
      `(warm-up included; wrk leaves up to ${2 * connections} in flight uncounted); API peak RSS ${peakAfterIngest.toFixed(0)} MB`)
    print(`[${elapsed()}] reads...`)
    const detailId = await firstRequestId(api.url, apiKey, seed.bigGateId)
    const signatureId = await topSignatureId(api.url, apiKey, seed.bigGateId)
    const reads = await measureReads(readCases(seed, detailId, signatureId), { baseUrl: api.url, apiKey, samples: readSamples })
    const peakEnd = treeMemoryMb(api.pid).peak
    let comparison: CompareResult | undefined
    if (env.API_BENCH_BASELINE_DIR) {
      print(`[${elapsed()}] ingest against the baseline in ${env.API_BENCH_BASELINE_DIR}...`)
      comparison = await compareIngest(
        apiKey,
        {
          baselineDir: env.API_BENCH_BASELINE_DIR,
          rows,
          otherGates,
          seedBodyBytes,
          apiEnv,
          gatePatch,
          bodies: captures.bodies,
          rounds: knob('API_BENCH_COMPARE_ROUNDS', 3),
          seconds: knob('API_BENCH_COMPARE_SECONDS', 15),
          connections,
          logFile,
          print,
        },
      )
    }
    const logBytes = fileSize(logFile)
    print(`[${elapsed()}] done; API log ${mb(logBytes)}`)

    const result: ApiBenchResult = {
      seed,
      ingest,
      reads,
      peakRssMb: { afterIngest: peakAfterIngest, end: peakEnd },
      targets: targets(ingest, reads, rate),
    }
    printResult(result, print, { rows })
    if (comparison) {
      print('')
      print('Ingest against the baseline (CPU per stored capture, closed loop, in turns):')
      printComparison(comparison, print)
    }
    return result
  } catch (error) {
    // The API's last words explain most failures (a config error, a crash).
    const tail = readTail(logFile, 20)
    if (tail !== '') print(`last lines of the API log:\n${tail}`)
    throw error
  } finally {
    await stopApiProcess(api)
    await database?.drop()
    if (env.API_BENCH_KEEP_LOG === '1') print(`API log kept: ${logFile}`)
    else rmSync(logFile, { force: true })
  }
}

function readTail(path: string, lines: number): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return ''
  }
}

async function storedCount(database: TestDatabase, gateId: string): Promise<number> {
  const [row] = await database.db.sql<{ n: string }[]>`SELECT count(*) AS n FROM requests WHERE gate_id = ${gateId}`
  return Number(row!.n)
}

async function firstRequestId(baseUrl: string, apiKey: string, gateId: string): Promise<string> {
  const response = await fetch(`${baseUrl}/gates/${gateId}/requests?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } })
  const body = (await response.json()) as { data: Array<{ id: string }> }
  return body.data[0]!.id
}

async function topSignatureId(baseUrl: string, apiKey: string, gateId: string): Promise<string> {
  const response = await fetch(`${baseUrl}/gates/${gateId}/signatures?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } })
  const body = (await response.json()) as { data: Array<{ id: string }> }
  return body.data[0]!.id
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(0)} MB`
}

function fileSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

if (import.meta.main) await runApiBench()
