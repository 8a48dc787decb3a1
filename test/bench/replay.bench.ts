/**
 * `bun run bench` (BENCH_ONLY=replay): how fast `bun run replay` replays
 * stored captures against a local candidate (docs/ci.md "Replay"; target
 * ≥ 1,000 replayed requests/s). Everything on this machine: PostgreSQL,
 * the API as a process, the candidate (a Bun.serve in this process) and
 * the replay as a process of its own, each run with no --rate.
 *
 * REPLAY_BENCH_CAPTURES (default 20000) captures of GET /items/{n} with
 * ~1 KB JSON bodies; REPLAY_BENCH_CONCURRENCY (default "16,32,64").
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createTestDatabase } from '../support/database.ts'
import { freePort } from '../support/ports.ts'
import { availableParallelism } from 'node:os'
import { cpuSeconds, startApiProcess, stopApiProcess } from './api-bench/api-process.ts'
import { loadNow, machineLines } from './api-bench/machine.ts'

const KEY = 'replay-bench-key-0123456789'
const CAPTURES = Number(process.env.REPLAY_BENCH_CAPTURES ?? 20_000)
const CONCURRENCY = (process.env.REPLAY_BENCH_CONCURRENCY ?? '16,32,64').split(',').map(Number)
const MAIN = resolve(import.meta.dir, '../../src/main.ts')
const TARGET_PER_SECOND = 1000

/** The ~1 KB body of item n, the same from live (stored) and from the candidate. */
function item(n: number): string {
  return JSON.stringify({ id: n, name: `item ${n}`, price: n * 10, tags: Array.from({ length: 12 }, (_, i) => `tag-${i}`), text: 'x'.repeat(800) })
}

/** CPU seconds this process has used (the candidate runs here). */
function benchCpuSeconds(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1e6
}

export async function runReplayBench(options: { printMachine?: boolean } = {}): Promise<void> {
  if (options.printMachine !== false) for (const line of machineLines()) console.log(line)
  const database = await createTestDatabase('postgres')
  const dir = mkdtempSync(join(tmpdir(), 'replay-bench-'))
  const port = freePort()
  const api = await startApiProcess(
    { SVC_APP_DATABASE_URL: database.url, SVC_APP_API_KEY: KEY, SVC_APP_RATE_LIMIT_EXEMPT: '127.0.0.1/32', SVC_APP_LOG_LEVEL: 'warn' },
    port,
    join(dir, 'api.log'),
  )
  // One candidate per run: a new address is a new replay gate, whose verdict no earlier run shares.
  const candidates: Array<ReturnType<typeof Bun.serve>> = []
  const candidate = () => {
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) => new Response(item(Number(new URL(request.url).pathname.split('/').at(-1))), { headers: { 'content-type': 'application/json' } }),
    })
    candidates.push(server)
    return `http://127.0.0.1:${server.port}`
  }
  // PostgreSQL's CPU for this database: the sum over its backends (they live as long as the API's pool).
  const databaseCpuSeconds = async () => {
    const pids = await database.db.sql<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`
    return pids.reduce((sum, { pid }) => sum + (cpuSeconds(pid) || 0), 0)
  }
  const call = (method: string, path: string, body?: unknown) =>
    fetch(api.url + path, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  try {
    const gate = ((await (await call('POST', '/gates', { name: 'bench', live_url: 'http://live', shadow_url: 'http://shadow' })).json()) as { data: { id: string } }).data.id
    const seeded = performance.now()
    const now = Date.now()
    for (let i = 0; i < CAPTURES; i += 64) {
      await Promise.all(
        Array.from({ length: Math.min(64, CAPTURES - i) }, (_, j) => {
          const n = i + j
          const at = new Date(now - 3_600_000 + n).toISOString()
          const response = { status_code: 200, headers: { 'Content-Type': ['application/json'] }, body: Buffer.from(item(n)).toString('base64'), latency_ms: 5, created_at: at }
          return call('POST', `/gates/${gate}/requests`, {
            method: 'GET',
            path: `/items/${n}`,
            headers: { Accept: ['application/json'] },
            body: '',
            created_at: at,
            live_response: response,
            shadow_response: response,
          }).then((r) => r.arrayBuffer())
        }),
      )
    }
    console.log(`seeded ${CAPTURES} captures in ${((performance.now() - seeded) / 1000).toFixed(1)} s`)
    console.log('')
    console.log('| concurrency | replayed | wall time | replayed/s | CPU ms per replayed request: replay + API + PostgreSQL + candidate | replay peak RSS |')
    console.log('|---|---|---|---|---|---|')
    for (const concurrency of CONCURRENCY) {
      const before = { api: cpuSeconds(api.pid), db: await databaseCpuSeconds(), bench: benchCpuSeconds() }
      const child = Bun.spawn(['bun', 'run', MAIN, 'replay', '--gate', gate, '--target', candidate(), '--concurrency', String(concurrency), '--progress-interval', '1h'], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_APP_API_URL: api.url, SVC_APP_API_KEY: KEY },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const started = performance.now()
      const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
      const wall = (performance.now() - started) / 1000
      const usage = child.resourceUsage()!
      const cpu = {
        replay: Number(usage.cpuTime.total) / 1e6,
        api: cpuSeconds(api.pid) - before.api,
        db: (await databaseCpuSeconds()) - before.db,
        candidate: benchCpuSeconds() - before.bench,
      }
      // The replay's own rate line: captures over the time from its first request to its last answer stored.
      const rate = /replay: (\d+)\/\d+ done, (\d+) req\/s/.exec(out)
      const replayed = Number(/(\d+) replayed/.exec(out)?.[1] ?? 0)
      if (!rate || replayed === 0) console.log(`replay output: ${err}${out}`)
      const perSecond = Number(rate?.[2] ?? 0)
      const perRequest = (seconds: number) => ((seconds * 1000) / Math.max(1, replayed)).toFixed(2)
      const total = cpu.replay + cpu.api + cpu.db + cpu.candidate
      console.log(
        `| ${concurrency} | ${replayed} | ${wall.toFixed(1)} s | **${perSecond}**${perSecond >= TARGET_PER_SECOND ? '' : ' (below 1,000)'} | ` +
          `${perRequest(cpu.replay)} + ${perRequest(cpu.api)} + ${perRequest(cpu.db)} + ${perRequest(cpu.candidate)} = ${perRequest(total)} | ${(usage.maxRSS / 1048576).toFixed(0)} MB |`,
      )
      // What the machine's CPUs could carry if this work had them to itself.
      console.log(`  at ${perRequest(total)} ms of CPU per request, ${availableParallelism()} CPUs carry ${Math.round((availableParallelism() * replayed) / total)} replayed requests/s; load ${loadNow()}`)
    }
  } finally {
    for (const server of candidates) server.stop(true)
    await stopApiProcess(api)
    await database.drop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await runReplayBench()
