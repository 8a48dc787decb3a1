/**
 * The API benchmark's ingest closed loop with SVC_APP_WORKERS=1 and `auto`,
 * interleaved on one seeded database (the API restarted for each run, the
 * order swapped each round), so that a machine whose load drifts weighs on
 * both alike: `bun run test/bench/api-bench/workers-compare.ts`.
 * Targets, not tests; figures in docs/benchmarks/api.md "Workers".
 *
 * Knobs: API_BENCH_ROWS (1000000), API_BENCH_SECONDS (20),
 * API_BENCH_CONNECTIONS (32), API_BENCH_COMPARE_ROUNDS (4).
 */
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase } from '../../support/database.ts'
import { freePort, runMigrator, startApiProcess, stopApiProcess, treeCpuSeconds } from './api-process.ts'
import { makeCaptureBodies } from './capture-bodies.ts'
import { closedLoop } from './ingest-load.ts'
import { loadNow, machineLines, machineShares, machineTicks, stealText } from './machine.ts'
import { seedCaptures } from './seed.ts'

const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const rows = knob('API_BENCH_ROWS', 1_000_000)
const seconds = knob('API_BENCH_SECONDS', 20)
const connections = knob('API_BENCH_CONNECTIONS', 32)
const rounds = knob('API_BENCH_COMPARE_ROUNDS', 4)

for (const line of machineLines()) console.log(line)
const database = await createTestDatabase('postgres', { migrate: false, pool: { max: 2 } })
const logFile = join(tmpdir(), `workers-compare-${process.pid}.log`)
try {
  await runMigrator(database.url)
  const seed = await seedCaptures(database.db.sql, { rows, otherGates: 300, rowsPerOtherGate: 20, bodyBytes: 128 })
  console.log(`seeded ${rows} captures in ${(seed.ms / 1000).toFixed(0)} s; load ${loadNow()}`)
  const apiKey = `bench-${randomBytes(16).toString('hex')}`
  const bodies = makeCaptureBodies({ count: 256, diffShare: 0.2, bytes: 2048 }).bodies
  // The API benchmark's gate settings: one ignored and one redacted body field.
  const gatePatch = {
    diff_config: { ignored_fields: ['body.meta.request_id'], included_fields: [], float_tolerance: 0, sort_arrays: false },
    redacted_fields: ['body.data.#.email'],
  }
  let patched = false
  const ratios: number[] = []
  for (let round = 1; round <= rounds; round++) {
    const rates = new Map<string, number>()
    for (const workers of round % 2 === 1 ? ['1', 'auto'] : ['auto', '1']) {
      const env = {
        SVC_APP_DATABASE_URL: database.url,
        SVC_APP_API_KEY: apiKey,
        SVC_APP_RATE_LIMIT: '100000000',
        SVC_APP_APP_ENV: 'production',
        SVC_APP_LOG_FORMAT: 'json',
        SVC_APP_WORKERS: workers,
      }
      const api = await startApiProcess(env, freePort(), logFile)
      try {
        if (!patched) {
          const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }
          const answer = await fetch(`${api.url}/gates/${seed.bigGateId}`, { method: 'PATCH', headers, body: JSON.stringify(gatePatch) })
          if (answer.status !== 200) throw new Error(`updateGate answered ${answer.status}: ${await answer.text()}`)
          patched = true
        }
        const target = { host: '127.0.0.1', port: api.port, path: `/gates/${seed.bigGateId}/requests`, apiKey, bodies }
        await closedLoop(target, { seconds: 3, connections })
        const cpu0 = treeCpuSeconds(api.pid)
        const machine0 = machineTicks()
        const report = await closedLoop(target, { seconds, connections })
        const machine1 = machineTicks()
        const stored = report.statuses['201'] ?? 0
        const rate = stored / report.seconds
        rates.set(workers, rate)
        const cpuMs = ((treeCpuSeconds(api.pid) - cpu0) / Math.max(1, stored)) * 1000
        const { busy } = machineShares(machine0, machine1)
        console.log(
          `round ${round}, SVC_APP_WORKERS=${workers}: ${rate.toFixed(0)} captures/s, p50 ${report.p50Ms.toFixed(1)} ms, ` +
            `p99 ${report.p99Ms.toFixed(1)} ms, API ${cpuMs.toFixed(2)} ms of CPU per capture, machine ${(busy * 100).toFixed(0)}% busy, ${stealText(machine0, machine1)}, load ${loadNow()}`,
        )
      } finally {
        await stopApiProcess(api)
      }
    }
    ratios.push(rates.get('auto')! / rates.get('1')!)
  }
  const sorted = [...ratios].sort((a, b) => a - b)
  const median = (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2
  console.log(`auto / 1: ${ratios.map((r) => r.toFixed(2)).join(', ')}; median ${median.toFixed(2)}`)
} finally {
  await database.drop()
  rmSync(logFile, { force: true })
}
process.exit(0)
