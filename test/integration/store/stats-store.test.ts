import { beforeEach, describe, expect, test } from 'bun:test'
import { compactRollups } from '../../../src/store/cleanup.ts'
import type { GateStore } from '../../../src/store/gate-store.ts'
import { rebuildRollups } from '../../../src/store/rebuild-rollups.ts'
import type { RequestStore } from '../../../src/store/request-store.ts'
import type { StatsStore } from '../../../src/store/stats-store.ts'
import { BACKENDS, type TestDatabase } from '../../support/database.ts'
import { at, capture, HOUR, insertAll, MINUTE, rollupDrift, useStores, type CaptureSpec } from './fixtures.ts'

const DAY = 24 * HOUR

describe.each(BACKENDS)('stats on %s', (kind) => {
  let t: TestDatabase
  let gates: GateStore
  let requests: RequestStore
  let stats: StatsStore

  useStores(kind, (stores) => ({ t, gates, requests, stats } = stores))
  beforeEach(async () => {
    await t.db.sql`DELETE FROM gates`
  })

  const create = (name: string) => gates.create({ name, live_url: `http://l/${name}`, shadow_url: `http://s/${name}` })

  // A clock that is not on a minute, so the window starts inside a rollup minute.
  const NOW = new Date('2026-06-15T12:34:56.789Z')
  const START = at(NOW, -DAY) // 2026-06-14T12:34:56.789Z

  /** [offset from the window start, has_diff, counted?] */
  const EDGE: [number, boolean, boolean][] = [
    [-6 * HOUR, true, false],
    [-MINUTE, true, false], // 24 h + 1 min ago
    [-1, true, false], // 1 ms too old
    [0, true, true], // exactly 24 h ago: "in the last 24 hours" includes it
    [1, false, true],
    [3210, true, true], // 12:34:59.999, still in the partial minute
    [3211, false, true], // 12:35:00.000, the first whole rollup minute
    [MINUTE, true, true], // 24 h - 1 min ago
    [12 * HOUR, false, true],
    [DAY, true, true], // now
    [DAY + 5 * MINUTE, false, true], // a proxy clock ahead of ours still counts
  ]

  async function seed(gateId: string, rows: [number, boolean, boolean][]) {
    await insertAll(requests, gateId, rows.map(([offset, hasDiff]): CaptureSpec => ({ created_at: at(START, offset), has_diff: hasDiff })))
  }

  test('a gate counts exactly the requests of the last 24 h, at both edges of the partial minute', async () => {
    const gate = await create('edge')
    await seed(gate.id, EDGE)
    const counted = EDGE.filter(([, , inside]) => inside)
    const diffs = counted.filter(([, hasDiff]) => hasDiff).length
    expect((await gates.get(gate.id, NOW))!.stats).toEqual({
      request_count_24h: counted.length,
      diff_count_24h: diffs,
      diff_rate: diffs / counted.length,
      last_active: at(START, DAY + 5 * MINUTE).toISOString(),
    })
  })

  test('the window moves with the clock, minute by minute and inside a minute', async () => {
    const gate = await create('moving')
    await seed(gate.id, EDGE)
    for (const shift of [-2 * MINUTE, -1, 1, 3211, MINUTE + 1, 6 * HOUR]) {
      const now = at(NOW, shift)
      const start = at(START, shift).getTime()
      const expected = EDGE.filter(([offset]) => at(START, offset).getTime() >= start)
      const got = (await gates.get(gate.id, now))!.stats
      expect([shift, got.request_count_24h, got.diff_count_24h]).toEqual([
        shift,
        expected.length,
        expected.filter(([, hasDiff]) => hasDiff).length,
      ])
    }
  })

  test('global stats add up every gate; gates without captures count as gates', async () => {
    const a = await create('a')
    const b = await create('b')
    await create('empty')
    await seed(a.id, EDGE)
    await seed(b.id, [
      [10, false, true],
      [20, false, true],
      [-10, true, false],
    ])
    const counted = EDGE.filter(([, , inside]) => inside)
    const diffs = counted.filter(([, hasDiff]) => hasDiff).length
    expect(await stats.globalStats(NOW)).toEqual({
      total_gates: 3,
      total_requests_24h: counted.length + 2,
      total_diff_rate: diffs / (counted.length + 2),
    })
  })

  test('global stats of an empty service are zeros', async () => {
    expect(await stats.globalStats()).toEqual({ total_gates: 0, total_requests_24h: 0, total_diff_rate: 0 })
  })

  test('parallel ingest, shard folding and a rebuild never change a count', async () => {
    const gate = await create('shards')
    const now = new Date()
    const specs = Array.from({ length: 60 }, (_, i): CaptureSpec => ({
      created_at: at(now, -(i % 3) * MINUTE - 10 * MINUTE),
      has_diff: i % 5 === 0,
      method: i % 2 ? 'GET' : 'POST',
    }))
    await Promise.all(specs.map((spec) => requests.insert(gate.id, capture(spec))))
    const before = (await gates.get(gate.id))!.stats
    expect(before).toMatchObject({ request_count_24h: 60, diff_count_24h: 12 })

    await compactRollups(t.db.sql)
    const [shards] = await t.db.sql<{ n: string }[]>`
      SELECT count(*) AS n FROM request_rollups WHERE gate_id = ${gate.id} AND shard <> 0`
    expect(Number(shards!.n)).toBe(0)
    expect((await gates.get(gate.id))!.stats).toEqual(before)
    expect(await rollupDrift(t.db.sql, gate.id)).toEqual([])

    await t.db.sql`UPDATE request_rollups SET request_count = request_count + 5 WHERE gate_id = ${gate.id}`
    expect(await rollupDrift(t.db.sql, gate.id)).not.toEqual([])
    await rebuildRollups(t.db.sql, gate.id)
    expect(await rollupDrift(t.db.sql, gate.id)).toEqual([])
    expect((await gates.get(gate.id))!.stats).toEqual(before)
  })
})
