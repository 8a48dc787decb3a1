/**
 * Re-diff jobs through the API on both backends (docs/insights.md
 * "Re-diff"): a job recomputes every capture of its window as a
 * brute-force comparison in the test does, while ingest goes on, and
 * leaves every rollup (24 h stats, insights, noise) exact; one job per
 * gate (409), cancel, take-over of a job whose process died, failure after
 * too many interruptions, and the gate's deletion.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { compareResponses, compileCaptureOptions, type DiffConfig } from '../../../src/diff/index.ts'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { noiseDrift } from '../../support/noise-drift.ts'
import { capturedResponse, exportedCaptures } from '../../support/stored-captures.ts'
import { rollupDrift } from '../store/fixtures.ts'
import type { Job } from '../../../src/store/job-store.ts'


const MINUTE = 60_000
const HOUR = 60 * MINUTE
const REDACTED = ['body.secret']
const config = (over: Partial<DiffConfig> = {}): DiffConfig => ({ ignored_fields: [], included_fields: [], float_tolerance: 0, sort_arrays: false, ...over })
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64')

describe.each(BACKENDS)('re-diff jobs on %s', (backend) => {
  let t: TestApi
  const now = Date.now()
  const iso = (msAgo: number) => new Date(now - msAgo).toISOString()
  const newGate = async (name: string) => {
    const gate = ((await (await t.call('POST', '/gates', { name, live_url: `http://l/${name}`, shadow_url: 'http://s:1' })).json()) as { data: { id: string } }).data.id
    expect((await t.call('PATCH', `/gates/${gate}`, { redacted_fields: REDACTED })).status).toBe(200)
    return gate
  }
  const job = async (gate: string, id: string) => ((await (await t.call('GET', `/gates/${gate}/jobs/${id}`)).json()) as { data: Job }).data
  /** Polls a job until it ends (bounded). */
  async function ended(gate: string, id: string, seconds = 90): Promise<Job> {
    for (let i = 0; i < seconds * 10; i++) {
      const current = await job(gate, id)
      if (current.state === 'done' || current.state === 'failed' || current.state === 'cancelled') return current
      await Bun.sleep(100)
    }
    throw new Error(`job ${id} did not end within ${seconds} s`)
  }
  /** A capture of item `i`: a timestamp, a price moved a little or a lot, a reordered array, a secret, some failed shadows, some noise checks. */
  function capture(i: number, at: string) {
    const live = { id: i, price: 10 + (i % 3), updated_at: `t${i}`, tags: ['a', 'b'], secret: 'x' }
    const shadow = {
      ...live,
      price: live.price + (i % 4 === 1 ? 0.25 : 0) + (i % 9 === 0 ? 5 : 0),
      updated_at: i % 2 === 0 ? `u${i}` : `t${i}`,
      tags: i % 5 === 0 ? ['b', 'a'] : ['a', 'b'],
      secret: 'y',
    }
    const path = ['/v1/items/', '/v1/orders/', '/v1/users/'][i % 3]! + (1000 + i)
    if (i % 17 === 0) return captureBody({ path, created_at: at, live, shadowStatus: 0, shadow: 'shadow: timed out after 2s' })
    const body = captureBody({ path, created_at: at, live, shadow })
    if (i % 6 !== 0) return body
    const repeat = { ...live, updated_at: i % 12 === 0 ? `r${i}` : `t${i}` }
    return { ...body, live_repeat_response: { status_code: 200, headers: { 'Content-Type': ['application/json'] }, body: b64(repeat), latency_ms: 3, created_at: at } }
  }
  async function ingest(gate: string, bodies: unknown[]) {
    for (let i = 0; i < bodies.length; i += 25) {
      const statuses = await Promise.all(bodies.slice(i, i + 25).map(async (body) => (await t.call('POST', `/gates/${gate}/requests`, body)).status))
      expect(statuses.every((s) => s === 201)).toBe(true)
    }
  }
  async function exact(gate: string) {
    const sql = t.database.db.sql
    expect(await rollupDrift(sql, gate)).toEqual([])
    expect(await noiseDrift(sql, gate)).toEqual([])
  }

  beforeAll(async () => {
    t = await startTestApi(backend)
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t?.stop())

  test('a job re-diffs its window under the current diff_config, exactly, while captures keep arriving', async () => {
    const gate = await newGate('rediff')
    await ingest(gate, Array.from({ length: 700 }, (_, i) => capture(i, iso((i + 1) * 6_000))))
    const old = captureBody({ path: '/v1/items/old', created_at: iso(30 * HOUR), live: { updated_at: 'a' }, shadow: { updated_at: 'b' } })
    await ingest(gate, [old])
    const stored = await exportedCaptures(t, gate, `?from=${iso(100 * HOUR)}`)
    const next = config({ ignored_fields: ['body.updated_at'], float_tolerance: 0.5 })
    expect((await t.call('PATCH', `/gates/${gate}`, { diff_config: next })).status).toBe(200)

    const res = await t.call('POST', `/gates/${gate}/rediff`, {})
    expect(res.status).toBe(202)
    const started = ((await res.json()) as { data: Job }).data
    expect(started).toMatchObject({ kind: 'rediff', total: 700, error: null, finished_at: null })
    expect(['queued', 'running']).toContain(started.state)
    // The job as getJob gives it, nothing of what the runner keeps (its window, settings, attempts).
    expect(Object.keys(started).sort()).toEqual(['done', 'error', 'finished_at', 'id', 'kind', 'started_at', 'state', 'total'])
    // Captures keep coming while it runs (under the new config already).
    await ingest(gate, Array.from({ length: 60 }, (_, i) => capture(i + 5000, new Date().toISOString())))
    const finished = await ended(gate, started.id)
    expect(finished).toMatchObject({ state: 'done', done: 700, total: 700, error: null })
    expect(Date.parse(finished.finished_at!)).toBeGreaterThanOrEqual(Date.parse(finished.started_at!))

    const options = compileCaptureOptions({ diff: next, redactedFields: REDACTED })
    const after = await exportedCaptures(t, gate, `?from=${iso(100 * HOUR)}`)
    const byId = new Map(after.map((c) => [c.id, c]))
    let changed = 0
    for (const before of stored) {
      const now = byId.get(before.id)!
      if (before.created_at < iso(24 * HOUR)) {
        expect(now).toEqual(before)
        continue
      }
      const comparison = compareResponses(capturedResponse(before.live_response), capturedResponse(before.shadow_response), options)
      expect(now.diff.content).toEqual(comparison.kind === 'diff' ? comparison.ops : [])
      expect(now.signature_id === null).toBe(comparison.kind === 'match')
      if (before.live_repeat_response !== null) {
        const noise = compareResponses(capturedResponse(before.live_response), capturedResponse(before.live_repeat_response), options)
        expect(now.noise).toEqual({ content: noise.kind === 'diff' ? noise.ops : [] })
      }
      if (JSON.stringify(now.diff) !== JSON.stringify(before.diff)) changed++
    }
    expect(changed).toBeGreaterThan(200)
    await exact(gate)

    // The reads that count from rollups agree with the rows.
    const sql = t.database.db.sql
    const [counts] = await sql<{ requests: string; diffs: string }[]>`
      SELECT count(*) AS requests, count(*) FILTER (WHERE has_diff) AS diffs FROM requests WHERE gate_id = ${gate} AND created_at >= now() - interval '24 hours'`
    const stats = ((await (await t.call('GET', `/gates/${gate}`)).json()) as { data: { stats: { request_count_24h: number; diff_count_24h: number } } }).data.stats
    expect(stats).toMatchObject({ request_count_24h: Number(counts!.requests), diff_count_24h: Number(counts!.diffs) })
    const endpoints = ((await (await t.call('GET', `/gates/${gate}/endpoints`)).json()) as { data: Array<{ diffs: number; errors: number }> }).data
    expect(endpoints.reduce((sum, e) => sum + e.diffs + e.errors, 0)).toBe(Number(counts!.diffs))
    const listed = ((await (await t.call('GET', `/gates/${gate}/requests?has_diff=true&from=${iso(24 * HOUR)}`)).json()) as { pagination: { total: number } }).pagination.total
    expect(listed).toBe(Number(counts!.diffs))
  })

  test("a signature's first and last time are those of the captures it still counts after a re-diff", async () => {
    const gate = await newGate('rediff-seen')
    const early = iso(30 * MINUTE)
    const late = iso(10 * MINUTE)
    await ingest(gate, [
      captureBody({ path: '/x', created_at: early, live: { price: 1 }, shadow: { price: 1.5 } }),
      captureBody({ path: '/x', created_at: late, live: { price: 1 }, shadow: { price: 6 } }),
    ])
    expect((await t.call('PATCH', `/gates/${gate}`, { diff_config: config({ float_tolerance: 1 }) })).status).toBe(200)
    const started = ((await (await t.call('POST', `/gates/${gate}/rediff`, {})).json()) as { data: Job }).data
    expect((await ended(gate, started.id)).state).toBe('done')
    // The early capture matches now: its minute lends the signature nothing.
    const res = await t.call('GET', `/gates/${gate}/signatures?kind=diff`)
    const [signature] = ((await res.json()) as { data: { count: number; first_seen: string; last_seen: string }[] }).data
    expect(signature).toMatchObject({ count: 1, first_seen: late, last_seen: late })
  })

  test('one job per gate: another while one is queued or running is a 409; cancelling frees the gate', async () => {
    const gate = await newGate('one-at-a-time')
    await ingest(gate, [capture(1, iso(MINUTE))])
    const sql = t.database.db.sql
    // A running job of another process, alive (fresh heartbeat).
    const [held] = await sql<{ id: string }[]>`
      INSERT INTO gate_jobs (id, gate_id, kind, state, window_from, window_to, diff_config, redacted_fields, total, owner, heartbeat_at, started_at)
      SELECT gen_random_uuid(), id, 'rediff', 'running', now() - interval '1 hour', now(), diff_config, redacted_fields, 1, 'another-replica', now() + interval '1 hour', now()
      FROM gates WHERE id = ${gate}
      RETURNING id`
    const refused = await t.call('POST', `/gates/${gate}/rediff`, {})
    expect(refused.status).toBe(409)
    const problem = (await refused.json()) as { type: string; detail: string }
    expect(problem.type).toBe('/errors/conflict')
    expect(problem.detail).toContain('one job per gate at a time')
    const cancelled = await t.call('DELETE', `/gates/${gate}/jobs/${held!.id}`)
    expect(cancelled.status).toBe(200)
    expect(((await cancelled.json()) as { data: Job }).data).toMatchObject({ state: 'cancelled', error: null })
    // A finished job is answered as it is.
    expect(((await (await t.call('DELETE', `/gates/${gate}/jobs/${held!.id}`)).json()) as { data: Job }).data.state).toBe('cancelled')
    const again = await t.call('POST', `/gates/${gate}/rediff`, {})
    expect(again.status).toBe(202)
    const done = await ended(gate, ((await again.json()) as { data: Job }).data.id)
    expect(done.state).toBe('done')
    expect(((await (await t.call('DELETE', `/gates/${gate}/jobs/${done.id}`)).json()) as { data: Job }).data.state).toBe('done')
  })

  test('a job whose process died (stale heartbeat) is taken over and resumed after its cursor; too many interruptions fail it', async () => {
    const gate = await newGate('taken-over')
    await ingest(gate, Array.from({ length: 120 }, (_, i) => capture(i, iso((i + 1) * 10_000))))
    expect((await t.call('PATCH', `/gates/${gate}`, { diff_config: config({ ignored_fields: ['body.tags'] }) })).status).toBe(200)
    const sql = t.database.db.sql
    // Interrupted half-way: the cursor at the 60th capture, its process gone for a minute.
    const [row] = await sql<{ id: string }[]>`
      WITH c AS (
        SELECT created_at, id FROM requests WHERE gate_id = ${gate} ORDER BY created_at, id OFFSET 59 LIMIT 1
      )
      INSERT INTO gate_jobs (id, gate_id, kind, state, window_from, window_to, diff_config, redacted_fields, total, done,
        cursor_at, cursor_id, owner, heartbeat_at, started_at, attempts)
      SELECT gen_random_uuid(), g.id, 'rediff', 'running', now() - interval '24 hours', now(), g.diff_config, g.redacted_fields, 120, 60,
        c.created_at, c.id, 'a-dead-process', now() - interval '1 minute', now() - interval '2 minutes', 1
      FROM gates g, c WHERE g.id = ${gate}
      RETURNING id`
    const resumed = await ended(gate, row!.id)
    expect(resumed).toMatchObject({ state: 'done', done: 120, total: 120 })
    // Only the captures after the cursor were re-diffed: the tags reorder of the first 60 still shows.
    const captures = await exportedCaptures(t, gate, `?from=${iso(100 * HOUR)}`)
    const tagged = (c: (typeof captures)[number]) => c.diff.content.some((op) => op.path.startsWith('/body/tags'))
    expect(captures.slice(0, 60).some(tagged)).toBe(true)
    expect(captures.slice(60).some(tagged)).toBe(false)
    await exact(gate)

    const [tired] = await sql<{ id: string }[]>`
      INSERT INTO gate_jobs (id, gate_id, kind, state, window_from, window_to, diff_config, redacted_fields, total, owner, heartbeat_at, started_at, attempts)
      SELECT gen_random_uuid(), id, 'rediff', 'running', now() - interval '1 hour', now(), diff_config, redacted_fields, 120, 'a-dead-process',
        now() - interval '1 minute', now(), 3
      FROM gates WHERE id = ${gate}
      RETURNING id`
    const failed = await ended(gate, tired!.id)
    expect(failed.state).toBe('failed')
    expect(failed.error).toContain('interrupted 3 times')
  }, 120_000)

  test('deleting the gate cancels its job: the job goes with it and stops at its next chunk', async () => {
    const gate = await newGate('deleted')
    await ingest(gate, Array.from({ length: 400 }, (_, i) => capture(i, iso((i + 1) * 1000))))
    const res = await t.call('POST', `/gates/${gate}/rediff`, {})
    expect(res.status).toBe(202)
    const id = ((await res.json()) as { data: Job }).data.id
    expect((await t.call('DELETE', `/gates/${gate}`)).status).toBe(204)
    await t.api.context.jobs.idle()
    expect((await t.call('GET', `/gates/${gate}/jobs/${id}`)).status).toBe(404)
    const [left] = await t.database.db.sql<{ n: string }[]>`SELECT count(*) AS n FROM gate_jobs WHERE id = ${id}`
    expect(Number(left!.n)).toBe(0)
    expect(t.logs.filter((line) => line.includes('rediff job failed') && line.includes(id))).toEqual([])
  })

  test.each<[string, string, unknown, number, string]>([
    ['from after to', 'rediff', { from: new Date(now).toISOString(), to: new Date(now - HOUR).toISOString() }, 400, 'from'],
    ['a from that is no date', 'rediff', { from: 'soon' }, 400, 'from'],
    ['an unknown field', 'rediff', { colour: 'red' }, 400, 'colour'],
    ['no JSON body', 'rediff', '', 400, 'JSON'],
  ])('%s is a %i naming %s', async (_what, op, body, status, field) => {
    const gate = await newGate(`bad-${crypto.randomUUID().slice(0, 6)}`)
    const res = await t.call('POST', `/gates/${gate}/${op}`, body)
    expect(res.status).toBe(status)
    expect(((await res.json()) as { detail: string }).detail).toContain(field)
  })

  test('404 for an unknown gate or job, 400 for a job id that is no UUID, 401 without the key', async () => {
    const gate = await newGate('lookups')
    expect((await t.call('POST', `/gates/${crypto.randomUUID()}/rediff`, {})).status).toBe(404)
    expect((await t.call('GET', `/gates/${gate}/jobs/${crypto.randomUUID()}`)).status).toBe(404)
    expect((await t.call('DELETE', `/gates/${gate}/jobs/${crypto.randomUUID()}`)).status).toBe(404)
    expect((await t.call('GET', `/gates/${crypto.randomUUID()}/jobs/${crypto.randomUUID()}`)).status).toBe(404)
    const bad = await t.call('GET', `/gates/${gate}/jobs/nope`)
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { detail: string }).detail).toContain('job_id')
    expect((await fetch(`${t.url}/gates/${gate}/rediff`, { method: 'POST', body: '{}' })).status).toBe(401)
  })
})
