import { describe, expect, test } from 'bun:test'
import { compactRollups } from '../../../src/store/cleanup.ts'
import { FOLD_LOCK_TIMEOUT_MS } from '../../../src/store/fold-insight-hours.ts'
import type { GateStore } from '../../../src/store/gate-store.ts'
import { createInsightsStore } from '../../../src/store/insights-store.ts'
import type { RequestStore } from '../../../src/store/request-store.ts'
import { BACKENDS, type TestDatabase } from '../../support/database.ts'
import { insightDrift } from '../../support/insight-drift.ts'
import { at, HOUR, insertAll, MINUTE, newGate, rollupDrift, useStores } from './fixtures.ts'

/** The start of the hour `hours` hours before the current one. */
function hourAgo(hours: number): Date {
  const now = Date.now()
  return new Date(now - (now % HOUR) - hours * HOUR)
}

async function markOf(t: TestDatabase, gateId: string): Promise<Date | undefined> {
  const [row] = await t.db.sql<{ through: Date }[]>`SELECT through FROM insight_hour_marks WHERE gate_id = ${gateId}`
  return row?.through
}

async function hourRows(t: TestDatabase, gateId: string): Promise<number> {
  const [row] = await t.db.sql<{ n: string }[]>`
    SELECT (SELECT count(*) FROM endpoint_rollups WHERE gate_id = ${gateId} AND grain = 60)
      + (SELECT count(*) FROM signature_rollups WHERE gate_id = ${gateId} AND grain = 60) AS n`
  return Number(row!.n)
}

describe.each(BACKENDS)('hours of the insight rollups, built by compaction, on %s', (kind) => {
  let t: TestDatabase
  let gates: GateStore
  let requests: RequestStore
  useStores(kind, (stores) => ({ t, gates, requests } = stores))

  const endpoints = (gateId: string, from: Date, to: Date) =>
    createInsightsStore(t.db.sql).endpoints(gateId, { from, to, limit: 100, offset: 0, sort: 'template', order: 'asc' })
  const signatures = (gateId: string, from: Date, to: Date) =>
    createInsightsStore(t.db.sql).signatures(gateId, { from, to, limit: 100, offset: 0, sort: 'count', order: 'desc' })

  test('ingest counts minutes only; the fold builds the past hours, moves the mark, and every read stays the same', async () => {
    const h = hourAgo(3)
    const gateId = await newGate(gates)
    await insertAll(requests, gateId, [
      { path: '/items/1', created_at: at(h, 10 * MINUTE) },
      { path: '/items/2', created_at: at(h, 70 * MINUTE), has_diff: true },
      { path: '/items/3', created_at: at(h, 130 * MINUTE), has_diff: true },
      { path: '/items/4', created_at: at(h, 175 * MINUTE) },
    ])
    expect(await markOf(t, gateId)).toBeUndefined()
    expect(await hourRows(t, gateId)).toBe(0)
    const windows: Array<[Date, Date]> = [[h, at(h, 4 * HOUR)], [at(h, 5 * MINUTE), at(h, 150 * MINUTE)], [at(h, HOUR), at(h, 2 * HOUR - 1)]]
    const before = await Promise.all(windows.map(async ([from, to]) => [await endpoints(gateId, from, to), await signatures(gateId, from, to)]))

    await compactRollups(t.db.sql, { now: at(h, 3 * HOUR + 10 * MINUTE) })
    expect(await markOf(t, gateId)).toEqual(at(h, 3 * HOUR))
    expect(await hourRows(t, gateId)).toBeGreaterThan(0)
    expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
    const after = await Promise.all(windows.map(async ([from, to]) => [await endpoints(gateId, from, to), await signatures(gateId, from, to)]))
    expect(after).toEqual(before)
    expect((await endpoints(gateId, h, at(h, 4 * HOUR))).items.reduce((n, e) => n + e.requests, 0)).toBe(4)

    // A late capture in a folded hour counts in its hour too; the mark never moves back.
    await insertAll(requests, gateId, [{ path: '/items/5', created_at: at(h, 20 * MINUTE), has_diff: true }])
    expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
    expect((await endpoints(gateId, h, at(h, 4 * HOUR))).items.reduce((n, e) => n + e.requests, 0)).toBe(5)
    await compactRollups(t.db.sql, { now: at(h, HOUR) })
    expect(await markOf(t, gateId)).toEqual(at(h, 3 * HOUR))
  }, 30_000)

  test('listRequests counts a template filter without a range from the hours before the mark and the minutes after it', async () => {
    const h = hourAgo(2)
    const gateId = await newGate(gates)
    await insertAll(requests, gateId, [
      { path: '/orders/1', created_at: at(h, 5 * MINUTE) },
      { path: '/orders/2', created_at: at(h, 65 * MINUTE) },
      { path: '/orders/3', created_at: at(h, 125 * MINUTE) },
    ])
    await compactRollups(t.db.sql, { now: at(h, HOUR + 10 * MINUTE) })
    expect(await markOf(t, gateId)).toEqual(at(h, HOUR))
    const page = await requests.list(gateId, { limit: 1, offset: 0, sort: 'created_at', order: 'desc', template: '/orders/{id}' })
    expect(page.total).toBe(3)
  })

  if (kind === 'postgres') {
    /**
     * A gate with one capture at h+10min, and a writer that has inserted
     * another at h+20min (so it read the gate's mark) and not committed.
     */
    async function writerInFlight(h: Date) {
      const gateId = await newGate(gates)
      await insertAll(requests, gateId, [{ path: '/late/1', created_at: at(h, 10 * MINUTE) }])
      const conn = await t.db.sql.reserve()
      await conn`BEGIN`
      await conn`
        INSERT INTO requests (id, gate_id, method, path, created_at, live_status, live_latency_ms,
          shadow_status, shadow_latency_ms, has_diff, template)
        VALUES (${crypto.randomUUID()}, ${gateId}, 'GET', '/late/2', ${at(h, 20 * MINUTE)}, 200, 5, 200, 6, false, '/late/{id}')`
      return { gateId, conn }
    }

    test('the fold waits for a writer in flight that read the old mark, so its capture is in the hour rows', async () => {
      const h = hourAgo(2)
      const { gateId, conn } = await writerInFlight(h)
      try {
        let done = false
        const fold = compactRollups(t.db.sql, { now: at(h, 2 * HOUR + 10 * MINUTE) }).finally(() => (done = true))
        await Bun.sleep(FOLD_LOCK_TIMEOUT_MS / 3)
        expect(done).toBe(false)
        await conn`COMMIT`
        await fold
      } finally {
        conn.release()
      }
      expect(await markOf(t, gateId)).toEqual(at(h, 2 * HOUR))
      expect(await insightDrift(t.db.sql, gateId)).toEqual([])
    })

    test('a writer that holds on longer than the fold waits leaves the mark where it was, for the next run', async () => {
      const h = hourAgo(2)
      const { gateId, conn } = await writerInFlight(h)
      try {
        await compactRollups(t.db.sql, { now: at(h, 2 * HOUR + 10 * MINUTE) })
        expect(await markOf(t, gateId)).toBeUndefined()
        await conn`COMMIT`
      } finally {
        conn.release()
      }
      await compactRollups(t.db.sql, { now: at(h, 2 * HOUR + 10 * MINUTE) })
      expect(await markOf(t, gateId)).toEqual(at(h, 2 * HOUR))
      expect(await insightDrift(t.db.sql, gateId)).toEqual([])
    })
  }
})

