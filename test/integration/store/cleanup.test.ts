import { beforeEach, describe, expect, test } from 'bun:test'
import { startCleanupJob } from '../../../src/api/cleanup-job.ts'
import { createLogger } from '../../../src/log/index.ts'
import { CLEANUP_LOCK_KEY, compactRollups, runCleanup } from '../../../src/store/cleanup.ts'
import { openDatabase } from '../../../src/store/database.ts'
import type { GateStore } from '../../../src/store/gate-store.ts'
import type { RequestStore } from '../../../src/store/request-store.ts'
import { BACKENDS, type TestDatabase } from '../../support/database.ts'
import { waitFor } from '../../support/upstreams.ts'
import { at, capture, HOUR, insertAll, MINUTE, rollupDrift, useStores } from './fixtures.ts'

const FLOOR = HOUR

describe.each(BACKENDS)('cleanup on %s', (kind) => {
  let t: TestDatabase
  let gates: GateStore
  let requests: RequestStore

  useStores(kind, (stores) => ({ t, gates, requests } = stores))
  beforeEach(async () => {
    await t.db.sql`DELETE FROM gates`
  })

  const NOW = new Date('2026-06-15T12:00:30.000Z')
  const AGES = [10 * MINUTE, 59 * MINUTE, 61 * MINUTE, 2 * HOUR, 150 * MINUTE, 3 * HOUR + MINUTE, 5 * HOUR, 30 * HOUR]

  async function gateWith(name: string, retention: string) {
    const gate = await gates.create({ name, live_url: `http://l/${name}`, shadow_url: `http://s/${name}` })
    if (retention !== '') await t.db.sql`UPDATE gates SET retention = ${retention} WHERE id = ${gate.id}`
    await insertAll(
      requests,
      gate.id,
      AGES.map((age, i) => ({ created_at: at(NOW, -age), has_diff: i % 2 === 0, method: i % 3 ? 'GET' : 'POST' })),
    )
    return gate.id
  }

  const remaining = async (gateId: string) =>
    (await requests.list(gateId, { limit: 100, offset: 0, sort: 'created_at', order: 'desc' })).items.map(
      (r) => NOW.getTime() - Date.parse(r.created_at),
    )

  test('deletes what is older than max(gate retention, floor), in batches, keeping rollups exact', async () => {
    const floor = await gateWith('floor', '')
    const longer = await gateWith('longer', '3h')
    const shorter = await gateWith('shorter', '30m') // below the floor: the floor wins
    const broken = await gateWith('broken', 'soon') // not a duration: the floor
    const deleted = await runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 2, now: NOW })

    const keptByFloor = AGES.filter((age) => age <= FLOOR)
    const keptBy3h = AGES.filter((age) => age <= 3 * HOUR)
    expect(deleted).toBe(3 * (AGES.length - keptByFloor.length) + (AGES.length - keptBy3h.length))
    expect(await remaining(floor)).toEqual(keptByFloor)
    expect(await remaining(longer)).toEqual(keptBy3h)
    expect(await remaining(shorter)).toEqual(keptByFloor)
    expect(await remaining(broken)).toEqual(keptByFloor)
    for (const id of [floor, longer, shorter, broken]) expect(await rollupDrift(t.db.sql, id)).toEqual([])

    // Pruned requests no longer count, in lists or in stats.
    expect((await requests.list(longer, { limit: 1, offset: 0, method: ['POST'], sort: 'created_at', order: 'desc' })).total).toBe(
      AGES.filter((age, i) => age <= 3 * HOUR && i % 3 === 0).length,
    )
    expect((await gates.get(longer, NOW))!.stats.request_count_24h).toBe(keptBy3h.length)
    const [payloads] = await t.db.sql<{ n: string }[]>`SELECT count(*) AS n FROM request_payloads`
    expect(Number(payloads!.n)).toBe(3 * keptByFloor.length + keptBy3h.length)
    // Nothing is left that sums to zero.
    const [empty] = await t.db.sql<{ n: string }[]>`SELECT count(*) AS n FROM request_rollups WHERE request_count = 0`
    expect(Number(empty!.n)).toBe(0)
    const [emptyPaths] = await t.db.sql<{ n: string }[]>`
      SELECT count(*) AS n FROM request_path_rollups WHERE request_count = 0 AND diff_count = 0`
    expect(Number(emptyPaths!.n)).toBe(0)

    expect(await runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 2, now: NOW })).toBe(0)
  })

  test('keeps last_active, which is the latest capture ever received', async () => {
    const id = await gateWith('quiet', '')
    const before = (await gates.get(id, NOW))!.stats.last_active
    await runCleanup(t.db.sql, { floorMs: 5 * MINUTE, batchSize: 100, now: NOW })
    expect(await remaining(id)).toEqual([])
    expect((await gates.get(id, NOW))!.stats).toEqual({ request_count_24h: 0, diff_count_24h: 0, diff_rate: 0, last_active: before })
  })

  test('a second run in the same process while one runs returns 0 and deletes nothing', async () => {
    await gateWith('a', '')
    const [one, two] = await Promise.all([
      runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 1, now: NOW }),
      runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 1, now: NOW }),
    ])
    expect([one, two]).toEqual([AGES.filter((age) => age > FLOOR).length, 0])
  })

  test('stays exact while captures keep arriving during the run', async () => {
    const id = await gateWith('busy', '')
    const arriving = Array.from({ length: 40 }, (_, i) =>
      capture({ created_at: at(NOW, -(i % 4) * HOUR), has_diff: i % 3 === 0, path: `/busy/${i % 5}` }),
    )
    const [deleted] = await Promise.all([
      runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 1, now: NOW }),
      ...arriving.map((c) => requests.insert(id, c)),
    ])
    expect(deleted).toBeGreaterThanOrEqual(AGES.filter((age) => age > FLOOR).length)
    expect(await rollupDrift(t.db.sql, id)).toEqual([])
    await runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 1000, now: NOW })
    expect(await rollupDrift(t.db.sql, id)).toEqual([])
    expect((await remaining(id)).every((age) => age <= FLOOR)).toBe(true)
  })

  test('a path whose requests were all pruned leaves no path rollup behind; path totals stay exact', async () => {
    const gate = await gates.create({ name: 'paths', live_url: 'http://l/paths', shadow_url: 'http://s/paths' })
    await insertAll(requests, gate.id, [
      { created_at: at(NOW, -2 * HOUR), path: '/gone/1', has_diff: true },
      { created_at: at(NOW, -3 * HOUR), path: '/gone/2', method: 'POST' },
      { created_at: at(NOW, -2 * HOUR), path: '/kept/1' },
      { created_at: at(NOW, -10 * MINUTE), path: '/kept/1', has_diff: true },
    ])
    const pathTotal = async (path: string, extra: { has_diff?: boolean } = {}) =>
      (await requests.list(gate.id, { limit: 1, offset: 0, path, sort: 'created_at', order: 'desc', ...extra })).total
    expect([await pathTotal('/gone/'), await pathTotal('/kept/'), await pathTotal('/*/1', { has_diff: true })]).toEqual([2, 2, 2])

    await runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 1, now: NOW })
    expect([await pathTotal('/gone/'), await pathTotal('/kept/'), await pathTotal('/*/1', { has_diff: true })]).toEqual([0, 1, 1])
    const left = await t.db.sql<{ path: string; shard: number }[]>`
      SELECT path, shard FROM request_path_rollups WHERE gate_id = ${gate.id} ORDER BY path`
    expect([...left]).toEqual([{ path: '/kept/1', shard: 0 }])
    expect(await rollupDrift(t.db.sql, gate.id)).toEqual([])
  })

  test('refuses a floor that is not positive', async () => {
    expect(runCleanup(t.db.sql, { floorMs: 0, batchSize: 10 })).rejects.toThrow(RangeError)
    expect(runCleanup(t.db.sql, { floorMs: HOUR, batchSize: 0 })).rejects.toThrow(RangeError)
  })

  // Another replica is another session; PGlite has only one (and one process).
  if (kind === 'postgres') test('skips when another replica holds the lock', async () => {
    const id = await gateWith('locked', '')
    const replica = await openDatabase(t.url, { max: 1, min: 0, idleTimeoutMs: 60_000, maxLifetimeMs: 3_600_000 })
    const conn = await replica.sql.reserve()
    try {
      await conn`SELECT pg_advisory_lock(${CLEANUP_LOCK_KEY})`
      expect(await runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 10, now: NOW })).toBe(0)
      expect(await compactRollups(t.db.sql)).toBe(0)
      expect(await remaining(id)).toHaveLength(AGES.length)
      await conn`SELECT pg_advisory_unlock(${CLEANUP_LOCK_KEY})`
    } finally {
      conn.release()
      await replica.close()
    }
    expect(await runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 10, now: NOW })).toBeGreaterThan(0)
  })

  test('a retention too long to take from a date (stored before retentions were bounded) keeps everything; other gates are cleaned', async () => {
    const ancient = await gateWith('ancient', '99999999999h')
    const floor = await gateWith('floor', '')
    await runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 100, now: NOW })
    expect(await remaining(ancient)).toHaveLength(AGES.length)
    expect(await remaining(floor)).toEqual(AGES.filter((age) => age <= FLOOR))
  })

  /** Makes the database refuse to delete the requests of one gate, as a lock timeout or a permission would. */
  async function refuseDeletesOf(gateId: string) {
    await t.db.sql.unsafe(`
      CREATE OR REPLACE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by the test' USING ERRCODE = '55P03'; END $$;
      DROP TRIGGER IF EXISTS refuse_delete ON requests;
      CREATE TRIGGER refuse_delete BEFORE DELETE ON requests FOR EACH ROW
        WHEN (OLD.gate_id = '${gateId}') EXECUTE FUNCTION refuse_delete();`)
  }

  test('each gate is cleaned on its own: one that fails is reported with its id, the others are still cleaned', async () => {
    const ids = [await gateWith('one', ''), await gateWith('two', ''), await gateWith('three', '')].sort()
    const [failing, ...others] = ids as [string, ...string[]]
    await refuseDeletesOf(failing)
    try {
      const failed: string[] = []
      const deleted = await runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 2, now: NOW, onGateError: (id) => void failed.push(id) })
      expect(failed).toEqual([failing])
      expect(deleted).toBe(others.length * AGES.filter((age) => age > FLOOR).length)
      for (const id of others) expect(await remaining(id)).toEqual(AGES.filter((age) => age <= FLOOR))
      expect(await remaining(failing)).toHaveLength(AGES.length)
      for (const id of ids) expect(await rollupDrift(t.db.sql, id)).toEqual([])

      // Without a callback the failures are thrown, once every other gate was cleaned.
      const later = await gateWith('later', '')
      const run = runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 2, now: NOW })
      await expect(run).rejects.toThrow(AggregateError)
      expect(await remaining(later)).toEqual(AGES.filter((age) => age <= FLOOR))
    } finally {
      await t.db.sql`DROP TRIGGER IF EXISTS refuse_delete ON requests`
    }
  })

  test('the cleanup job logs a gate that failed with its id and cleans the others', async () => {
    const ids = [await gateWith('job-a', ''), await gateWith('job-b', '')].sort()
    const [failing, other] = ids as [string, string]
    await refuseDeletesOf(failing)
    const lines: string[] = []
    const job = startCleanupJob({
      sql: t.db.sql,
      config: { retentionMs: 2 * HOUR, cleanupIntervalMs: HOUR },
      logger: createLogger({ level: 'info', format: 'json', write: (line) => void lines.push(line) }),
    })
    try {
      await job.runNow()
      const failure = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((r) => r.gate === failing)
      expect(failure?.msg ?? failure?.message).toBe('retention cleanup failed for a gate; the others are still cleaned')
      // The job measures ages against the database's clock: everything here is older than two hours.
      expect(await remaining(other)).toEqual([])
    } finally {
      job.stop()
      await t.db.sql`DROP TRIGGER IF EXISTS refuse_delete ON requests`
    }
  })

  if (kind === 'postgres') test('a retention raised during a run stops the deleting: after the batch under way, nothing it now keeps goes', async () => {
    const gate = await gates.create({ name: 'raised', live_url: 'http://l/raised', shadow_url: 'http://s/raised' })
    await t.db.sql`UPDATE gates SET retention = '2h' WHERE id = ${gate.id}`
    await insertAll(requests, gate.id, Array.from({ length: 10 }, (_, i) => ({ created_at: at(NOW, -(3 * HOUR + i * MINUTE)) })))
    const count = async () => Number((await t.db.sql<{ n: string }[]>`SELECT count(*) AS n FROM requests WHERE gate_id = ${gate.id}`)[0]!.n)
    // Another transaction holds the fifth oldest capture: the run's third batch waits for it.
    const [fifth] = await t.db.sql<{ id: string }[]>`SELECT id FROM requests WHERE gate_id = ${gate.id} ORDER BY created_at LIMIT 1 OFFSET 4`
    const holder = await t.db.sql.reserve()
    await holder`BEGIN`
    await holder`SELECT id FROM requests WHERE id = ${fifth!.id} FOR UPDATE`
    const run = runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 2, now: NOW })
    try {
      // The third batch has read the retention and waits on the held row.
      const waiting = async () =>
        Number((await t.db.sql<{ n: string }[]>`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%victims%'`)[0]!.n)
      await waitFor(async () => ((await count()) === 6 && (await waiting()) === 1 ? true : undefined), 10_000, 'the third batch waiting')
      const update = gates.update(gate.id, { retention: '720h' })
      expect((await update)?.retention).toBe('720h')
      // The update does not wait for the batch the row lock holds; that batch read 2h and goes on.
      await Bun.sleep(200)
      await holder`COMMIT`
      // Two batches went before the update, the one under way after it; the rest is kept.
      expect(await run).toBe(6)
      expect(await count()).toBe(4)
      expect(await rollupDrift(t.db.sql, gate.id)).toEqual([])
    } finally {
      await holder`ROLLBACK`.catch(() => {})
      holder.release()
      await run.catch(() => {})
    }
  })

  test('a gate deleted during a run takes its requests with it, without errors', async () => {
    const doomed = await gateWith('doomed', '')
    const kept = await gateWith('kept', '')
    const [deleted] = await Promise.all([
      runCleanup(t.db.sql, { floorMs: FLOOR, batchSize: 1, now: NOW }),
      gates.delete(doomed),
    ])
    expect(deleted).toBeGreaterThanOrEqual(AGES.filter((age) => age > FLOOR).length)
    expect(await remaining(kept)).toEqual(AGES.filter((age) => age <= FLOOR))
    const [left] = await t.db.sql<{ n: string }[]>`SELECT count(*) AS n FROM requests WHERE gate_id = ${doomed}`
    expect(Number(left!.n)).toBe(0)
  })
})
