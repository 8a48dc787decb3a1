/**
 * A re-diff job across API restarts, with the API as a process of its own
 * (docs/storage.md "Jobs"): killed mid-job (SIGKILL: no chance to hand the
 * job back), the next start takes the job over once its heartbeat is
 * stale and resumes it after its last chunk; stopped gracefully (SIGTERM),
 * the job is handed back and resumed at once. Either way it ends `done`
 * and every rollup equals what is stored.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { rebuildRollups } from '../../../src/store/rebuild-rollups.ts'
import { createTestDatabase, type TestDatabase } from '../../support/database.ts'
import { freePort } from '../../support/ports.ts'
import { noiseDrift } from '../../support/noise-drift.ts'
import { rollupDrift } from '../store/fixtures.ts'

const MAIN = join(import.meta.dir, '../../../src/main.ts')
const KEY = 'rediff-restart-key-0123'

interface Job {
  id: string
  state: string
  done: number
  total: number
  error: string | null
}

function spawnApi(databaseUrl: string, port: number) {
  return Bun.spawn(['bun', 'run', MAIN, 'api'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SVC_APP_DATABASE_URL: databaseUrl,
      SVC_APP_API_KEY: KEY,
      SVC_APP_PORT: String(port),
      SVC_APP_LOG_FORMAT: 'json',
      SVC_APP_RATE_LIMIT: '100000',
    },
    cwd: import.meta.dir,
    stdout: 'ignore',
    stderr: 'ignore',
  })
}

async function waitReady(url: string, proc: { exitCode: number | null }): Promise<void> {
  for (let i = 0; i < 600 && proc.exitCode === null; i++) {
    if (await fetch(url + '/health/ready').then((r) => r.ok, () => false)) return
    await Bun.sleep(100)
  }
  throw new Error(proc.exitCode === null ? 'the API did not become ready within 60 s' : `the API exited (code ${proc.exitCode}) before it was ready`)
}

function call(url: string, method: string, path: string, body?: unknown) {
  return fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

async function jobOf(url: string, gate: string, id: string): Promise<Job> {
  return ((await (await call(url, 'GET', `/gates/${gate}/jobs/${id}`)).json()) as { data: Job }).data
}

/** Polls until `ok(job)` (bounded). */
async function until(url: string, gate: string, id: string, ok: (job: Job) => boolean, seconds: number): Promise<Job> {
  for (let i = 0; i < seconds * 20; i++) {
    const job = await jobOf(url, gate, id)
    if (ok(job)) return job
    await Bun.sleep(50)
  }
  throw new Error(`job ${id} did not get there within ${seconds} s: ${JSON.stringify(await jobOf(url, gate, id))}`)
}

const pad = 'x'.repeat(1800)
const ended = (job: Job) => ['done', 'failed', 'cancelled'].includes(job.state)

/**
 * `n` captures written with SQL (the API would take a while for this many):
 * a timestamp that differs on every one, the rows' rollups rebuilt from them.
 */
async function seed(sql: postgres.Sql, gate: string, n: number): Promise<void> {
  await sql`
    WITH g AS (SELECT generate_series(1, ${n}::int) AS i),
    r AS (
      INSERT INTO requests (id, gate_id, method, path, raw_query, created_at, live_status, live_latency_ms, shadow_status,
        shadow_latency_ms, has_diff, template)
      SELECT gen_random_uuid(), ${gate}::uuid, 'GET', '/v1/items/' || i, '', now() - i * interval '1 second', 200, 10, 200, 12, true,
        '/v1/items/{id}'
      FROM g
      RETURNING id, path
    )
    INSERT INTO request_payloads (request_id, headers, body, live_response_id, live_headers, live_body, live_created_at,
      shadow_response_id, shadow_headers, shadow_body, shadow_created_at, diff)
    SELECT r.id, '{}', '', gen_random_uuid(), '{"Content-Type": ["application/json"]}',
      convert_to('{"path":"' || r.path || '","ts":"a","pad":"' || ${pad} || '"}', 'UTF8'), now(),
      gen_random_uuid(), '{"Content-Type": ["application/json"]}',
      convert_to('{"path":"' || r.path || '","ts":"b","pad":"' || ${pad} || '"}', 'UTF8'), now(),
      '[{"op": "replace", "path": "/body/ts", "value": "b"}]'
    FROM r`
  await rebuildRollups(sql, gate)
}

describe('a re-diff job across restarts', () => {
  const cleanups: Array<() => Promise<void> | void> = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  test('PostgreSQL: killed mid-job (SIGKILL), the next start resumes it after its stale heartbeat; it ends done, counts exact', async () => {
    const database: TestDatabase = await createTestDatabase('postgres')
    cleanups.push(() => database.drop())
    const port = freePort()
    const url = `http://127.0.0.1:${port}`
    let api = spawnApi(database.url, port)
    cleanups.push(() => void api.kill('SIGKILL'))
    await waitReady(url, api)
    const gate = ((await (await call(url, 'POST', '/gates', { name: 'killed', live_url: 'http://l:1', shadow_url: 'http://s:1' })).json()) as { data: { id: string } }).data.id
    await seed(database.db.sql, gate, 40_000)
    const config = { ignored_fields: ['body.ts'], included_fields: [], float_tolerance: 0, sort_arrays: false }
    expect((await call(url, 'PATCH', `/gates/${gate}`, { diff_config: config })).status).toBe(200)
    const started = ((await (await call(url, 'POST', `/gates/${gate}/rediff`, {})).json()) as { data: Job }).data
    expect(started.total).toBe(40_000)

    const midway = await until(url, gate, started.id, (job) => job.done > 0 || ended(job), 60)
    api.kill('SIGKILL')
    await api.exited
    expect(midway.state).toBe('running')
    const [left] = await database.db.sql<{ state: string; done: string }[]>`SELECT state, done FROM gate_jobs WHERE id = ${started.id}`
    expect(left!.state).toBe('running')
    expect(Number(left!.done)).toBeLessThan(40_000)

    api = spawnApi(database.url, port)
    await waitReady(url, api)
    const finished = await until(url, gate, started.id, ended, 120)
    expect(finished).toMatchObject({ state: 'done', total: 40_000, error: null })
    const [counts] = await database.db.sql<{ differing: string; attempts: number }[]>`
      SELECT (SELECT count(*) FROM requests WHERE gate_id = ${gate} AND has_diff) AS differing,
        (SELECT attempts FROM gate_jobs WHERE id = ${started.id}) AS attempts`
    expect(Number(counts!.differing)).toBe(0)
    expect(counts!.attempts).toBe(2)
    expect(await rollupDrift(database.db.sql, gate)).toEqual([])
    expect(await noiseDrift(database.db.sql, gate)).toEqual([])
    api.kill('SIGTERM')
    await api.exited
  }, 300_000)

  test('PGlite: stopped gracefully mid-job (SIGTERM), the job is handed back and the next start resumes it at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-rediff-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const databaseUrl = `pglite://${dir}`
    const migrate = Bun.spawn(['bun', 'run', MAIN, 'migrate'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_APP_DATABASE_URL: databaseUrl },
      stdout: 'ignore',
      stderr: 'ignore',
    })
    expect(await migrate.exited).toBe(0)
    const port = freePort()
    const url = `http://127.0.0.1:${port}`
    let api = spawnApi(databaseUrl, port)
    cleanups.push(() => void api.kill('SIGKILL'))
    await waitReady(url, api)
    const gate = ((await (await call(url, 'POST', '/gates', { name: 'stopped', live_url: 'http://l:1', shadow_url: 'http://s:1' })).json()) as { data: { id: string } }).data.id
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64')
    const at = new Date().toISOString()
    for (let i = 0; i < 3000; i += 50) {
      const statuses = await Promise.all(
        Array.from({ length: 50 }, async (_, j) => {
          const body = {
            method: 'GET',
            path: `/v1/items/${i + j}`,
            headers: {},
            body: '',
            created_at: at,
            live_response: { status_code: 200, headers: { 'Content-Type': ['application/json'] }, body: b64({ ts: 'a', pad }), latency_ms: 1, created_at: at },
            shadow_response: { status_code: 200, headers: { 'Content-Type': ['application/json'] }, body: b64({ ts: 'b', pad }), latency_ms: 1, created_at: at },
          }
          return (await call(url, 'POST', `/gates/${gate}/requests`, body)).status
        }),
      )
      expect(statuses.every((s) => s === 201)).toBe(true)
    }
    expect((await call(url, 'PATCH', `/gates/${gate}`, { diff_config: { ignored_fields: ['body.ts'], included_fields: [], float_tolerance: 0, sort_arrays: false } })).status).toBe(200)
    const started = ((await (await call(url, 'POST', `/gates/${gate}/rediff`, {})).json()) as { data: Job }).data
    const midway = await until(url, gate, started.id, (job) => job.done > 0 || ended(job), 60)
    expect(midway.state).toBe('running')
    api.kill('SIGTERM')
    expect(await api.exited).toBe(0)
    const { openDatabase } = await import('../../../src/store/database.ts')
    const pool = { max: 2, min: 0, idleTimeoutMs: 30_000, maxLifetimeMs: 3_600_000 }
    const between = await openDatabase(databaseUrl, pool)
    try {
      // Handed back: still running, no owner, no heartbeat (stale at once), the attempt not counted.
      const [job] = await between.sql<{ state: string; owner: string | null; heartbeat_at: Date | null; done: string; attempts: number }[]>`
        SELECT state, owner, heartbeat_at, done, attempts FROM gate_jobs WHERE id = ${started.id}`
      expect(job).toMatchObject({ state: 'running', owner: null, heartbeat_at: null, attempts: 0 })
      expect(Number(job!.done)).toBeLessThan(3000)
    } finally {
      await between.close()
    }

    api = spawnApi(databaseUrl, port)
    await waitReady(url, api)
    const finished = await until(url, gate, started.id, ended, 120)
    expect(finished).toMatchObject({ state: 'done', total: 3000, done: 3000, error: null })
    api.kill('SIGTERM')
    expect(await api.exited).toBe(0)
    // The database, opened again here once the API is gone: nothing differs, the counts are exact.
    const db = await openDatabase(databaseUrl, pool)
    try {
      const [row] = await db.sql<{ differing: string; attempts: number }[]>`
        SELECT (SELECT count(*) FROM requests WHERE gate_id = ${gate} AND has_diff) AS differing,
          (SELECT attempts FROM gate_jobs WHERE id = ${started.id}) AS attempts`
      expect(Number(row!.differing)).toBe(0)
      expect(row!.attempts).toBe(1)
      expect(await rollupDrift(db.sql, gate)).toEqual([])
      expect(await noiseDrift(db.sql, gate)).toEqual([])
    } finally {
      await db.close()
    }
  }, 300_000)
})
