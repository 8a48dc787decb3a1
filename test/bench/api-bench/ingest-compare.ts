/**
 * Ingest cost against another build of the service, side by side in one
 * run (docs/benchmarks/api.md "Insights"):
 * the same closed-loop load on this checkout's API and on the baseline's,
 * round after round in turns, so that the machine's other work falls on
 * both alike. Each API has a database of its own, migrated and seeded by
 * its own code (the baseline's migrator and seed.ts) with the same number
 * of captures. What is compared is CPU per stored capture: the API process
 * plus the PostgreSQL backends of its database.
 *
 * The baseline is a directory holding the other checkout, with
 * node_modules, for example:
 *
 *   git worktree add --detach /tmp/svc-baseline <rev>
 *   ln -s "$PWD/node_modules" /tmp/svc-baseline/node_modules
 */
import { spawn } from 'bun'
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createTestDatabase, type TestDatabase } from '../../support/database.ts'
import { freePort, REPO, runMigrator, startApiProcess, stopApiProcess, treeCpuSeconds, type ApiProcess } from './api-process.ts'
import { closedLoop, type IngestTarget } from './ingest-load.ts'
import { backendCpuBetween, sampleBackends } from './postgres-cpu.ts'
import { int, textTable } from './text-table.ts'

export interface CompareSide {
  readonly api: ApiProcess
  readonly database: TestDatabase
  readonly gateId: string
  readonly apiKey: string
}

export interface CompareOptions {
  /** The other checkout (see the file's comment). */
  readonly baselineDir: string
  readonly rows: number
  readonly otherGates: number
  readonly seedBodyBytes: number
  /** API environment, as the bench gives its own API. */
  readonly apiEnv: Record<string, string>
  readonly gatePatch: unknown
  readonly bodies: string[]
  readonly rounds: number
  readonly seconds: number
  readonly connections: number
  readonly logFile: string
  readonly print: (line: string) => void
}

export interface CompareRun {
  readonly side: 'baseline' | 'current'
  readonly round: number
  readonly capturesPerSecond: number
  readonly apiMs: number
  readonly postgresMs: number
}

export interface CompareResult {
  readonly runs: CompareRun[]
  /** Median CPU ms per capture (API + PostgreSQL) of each side, and current / baseline - 1. */
  readonly baselineMs: number
  readonly currentMs: number
  readonly increase: number
}

/**
 * Prepares both sides alike (a fresh database migrated and seeded by the
 * side's own checkout, its API started from it, the gate patched), loads
 * them in turns, and stops and drops both. The current side is never the
 * benchmark's own database: after the benchmark's ingest and reads that one
 * holds several times the captures in its hot minutes and rollup rows, and
 * the same code measured there cost PostgreSQL about twice as much per
 * capture as on a fresh one (docs/benchmarks/api.md, "Ingest against the
 * code before").
 */
export async function compareIngest(apiKey: string, options: CompareOptions): Promise<CompareResult> {
  const dir = options.baselineDir
  if (!existsSync(join(dir, 'src/main.ts')) || !existsSync(join(dir, 'node_modules'))) {
    throw new Error(`API_BENCH_BASELINE_DIR=${dir} must hold a checkout with node_modules (see ingest-compare.ts)`)
  }
  const sides: CompareSide[] = []
  try {
    // One after the other: two seeds at once would each measure the other.
    sides.push(await prepareSide(dir, 'baseline', apiKey, options))
    sides.push(await prepareSide(REPO, 'current', apiKey, options))
    const [baseline, current] = sides as [CompareSide, CompareSide]

    const runs: CompareRun[] = []
    for (const side of [baseline, current]) await load(side, options, 3) // warm-up, not counted
    for (let round = 1; round <= options.rounds; round++) {
      // Alternate which goes first, so neither always follows the other's backlog (vacuum, checkpoints).
      const order = round % 2 ? ([['baseline', baseline], ['current', current]] as const) : ([['current', current], ['baseline', baseline]] as const)
      for (const [name, side] of order) {
        const run = { side: name, round, ...(await load(side, options, options.seconds)) }
        runs.push(run)
        options.print(`  round ${round}, ${name}: ${int(run.capturesPerSecond)} captures/s, API ${run.apiMs.toFixed(3)} ms + ` +
          `PostgreSQL ${run.postgresMs.toFixed(3)} ms of CPU per capture`)
      }
    }
    const median = (name: CompareRun['side']) => {
      const values = runs.filter((r) => r.side === name).map((r) => r.apiMs + r.postgresMs).sort((a, b) => a - b)
      return values[Math.floor((values.length - 1) / 2)]!
    }
    const baselineMs = median('baseline')
    const currentMs = median('current')
    return { runs, baselineMs, currentMs, increase: currentMs / baselineMs - 1 }
  } finally {
    for (const side of sides) {
      await stopApiProcess(side.api)
      await side.database.drop()
    }
  }
}

/** A fresh database migrated and seeded by `dir`'s own code, and its API, the gate patched as the benchmark's. */
async function prepareSide(dir: string, name: CompareRun['side'], apiKey: string, options: CompareOptions): Promise<CompareSide> {
  const database = await createTestDatabase('postgres', { migrate: false, pool: { max: 2 } })
  let api: ApiProcess | undefined
  try {
    await runMigrator(database.url, dir)
    options.print(`  ${name} database migrated by ${dir}; seeding ${int(options.rows)} captures with its seed.ts...`)
    const gateId = await seedWith(dir, database.url, options)
    api = await startApiProcess({ ...options.apiEnv, SVC_APP_DATABASE_URL: database.url }, freePort(), options.logFile, undefined, dir)
    const patched = await fetch(`${api.url}/gates/${gateId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(options.gatePatch),
    })
    if (patched.status !== 200) throw new Error(`${name} updateGate answered ${patched.status}`)
    return { api, database, gateId, apiKey }
  } catch (error) {
    await stopApiProcess(api)
    await database.drop()
    throw error
  }
}

/** A closed-loop run; CPU per stored capture of the API (its workers included) and of its database's backends. */
async function load(side: CompareSide, options: CompareOptions, seconds: number) {
  const target: IngestTarget = {
    host: '127.0.0.1',
    port: side.api.port,
    path: `/gates/${side.gateId}/requests`,
    apiKey: side.apiKey,
    bodies: options.bodies,
  }
  const pg0 = await sampleBackends(side.database.db.sql)
  const api0 = treeCpuSeconds(side.api.pid)
  const report = await closedLoop(target, { seconds, connections: options.connections })
  const apiCpu = treeCpuSeconds(side.api.pid) - api0
  const postgresCpu = backendCpuBetween(pg0, await sampleBackends(side.database.db.sql))
  const stored = report.statuses['201'] ?? 0
  return {
    capturesPerSecond: stored / report.seconds,
    apiMs: (apiCpu * 1000) / Math.max(1, stored),
    postgresMs: (postgresCpu * 1000) / Math.max(1, stored),
  }
}

/** Runs the baseline's own seed.ts on its database; resolves with its big gate's id. */
async function seedWith(dir: string, databaseUrl: string, options: CompareOptions): Promise<string> {
  const script = join(dir, `.bench-seed-${process.pid}.ts`)
  writeFileSync(
    script,
    `import postgres from 'postgres'
import { seedCaptures } from './test/bench/api-bench/seed.ts'
const sql = postgres(process.env.BENCH_DATABASE_URL!, { max: 2, onnotice: () => {} })
const seed = await seedCaptures(sql, { rows: ${options.rows}, otherGates: ${options.otherGates}, rowsPerOtherGate: 20, bodyBytes: ${options.seedBodyBytes} })
await sql.end()
console.log(JSON.stringify({ bigGateId: seed.bigGateId }))
`,
  )
  try {
    const child = spawn(['bun', 'run', script], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', BENCH_DATABASE_URL: databaseUrl },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
    if ((await child.exited) !== 0) throw new Error(`the baseline's seed failed: ${err || out}`)
    return (JSON.parse(out.trim().split('\n').pop()!) as { bigGateId: string }).bigGateId
  } finally {
    rmSync(script, { force: true })
  }
}

/** The comparison as a table, with the verdict against the 15 % budget. */
export function printComparison(result: CompareResult, print: (line: string) => void): void {
  for (const line of textTable(
    [
      ['round', 'build', 'captures/s', 'API CPU ms/capture', 'PG CPU ms/capture', 'total'],
      ...result.runs.map((r) => [
        String(r.round),
        r.side,
        int(r.capturesPerSecond),
        r.apiMs.toFixed(3),
        r.postgresMs.toFixed(3),
        (r.apiMs + r.postgresMs).toFixed(3),
      ]),
    ],
    new Set([0, 2, 3, 4, 5]),
  )) print(`  ${line}`)
  print(`  median CPU per capture: baseline ${result.baselineMs.toFixed(3)} ms, current ${result.currentMs.toFixed(3)} ms: ` +
    `${(result.increase * 100).toFixed(1)} % (budget +15 %: ${result.increase <= 0.15 ? 'met' : 'NOT met'})`)
}
