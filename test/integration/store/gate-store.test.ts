import { beforeEach, describe, expect, test } from 'bun:test'
import { ConflictError } from '../../../src/errors/app-error.ts'
import { GATE_SORT_KEYS, type GateStore } from '../../../src/store/gate-store.ts'
import type { RequestStore } from '../../../src/store/request-store.ts'
import type { Gate } from '../../../src/store/rows.ts'
import { BACKENDS, type TestDatabase } from '../../support/database.ts'
import { HOUR, insertAll, useStores } from './fixtures.ts'

describe.each(BACKENDS)('gate store on %s', (kind) => {
  let t: TestDatabase
  let gates: GateStore
  let requests: RequestStore

  useStores(kind, (stores) => ({ t, gates, requests } = stores))
  beforeEach(async () => {
    await t.db.sql`DELETE FROM gates`
  })

  const create = (name: string, n = name) => gates.create({ name, live_url: `http://live/${n}`, shadow_url: `http://shadow/${n}` })

  describe('create and get', () => {
    test('a new gate has the documented defaults and zero stats', async () => {
      const gate = await gates.create({ name: 'orders', live_url: 'http://live:8080', shadow_url: 'http://shadow:8080' })
      expect(gate).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'orders',
        live_url: 'http://live:8080',
        shadow_url: 'http://shadow:8080',
        diff_config: { ignored_fields: [], included_fields: [], float_tolerance: 0, sort_arrays: false },
        redacted_fields: [],
        retention: '',
        endpoints: [],
        verdict: {},
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        stats: { request_count_24h: 0, diff_count_24h: 0, diff_rate: 0, last_active: null },
      })
      expect(await gates.get(gate.id)).toEqual(gate)
      expect(await gates.settings(gate.id)).toEqual({
        id: gate.id,
        diff_config: gate.diff_config,
        redacted_fields: [],
        retention: '',
        endpoints: [],
      })
    })

    test('an unknown or malformed id is simply absent', async () => {
      expect(await gates.get(crypto.randomUUID())).toBeUndefined()
      expect(await gates.get('not-a-uuid')).toBeUndefined()
      expect(await gates.settings('not-a-uuid')).toBeUndefined()
      expect(await gates.update('not-a-uuid', { name: 'x' })).toBeUndefined()
      expect(await gates.delete('not-a-uuid')).toBe(false)
    })

    test('a name is unique', async () => {
      await create('dup', 'a')
      expect(create('dup', 'b')).rejects.toThrow(new ConflictError('a gate with this name already exists'))
    })

    test('a live/shadow URL pair is unique, either URL alone is not', async () => {
      await gates.create({ name: 'one', live_url: 'http://l', shadow_url: 'http://s' })
      expect(gates.create({ name: 'two', live_url: 'http://l', shadow_url: 'http://s' })).rejects.toThrow(
        new ConflictError('a gate with this live_url and shadow_url already exists'),
      )
      await gates.create({ name: 'three', live_url: 'http://l', shadow_url: 'http://s2' })
      await gates.create({ name: 'four', live_url: 'http://l2', shadow_url: 'http://s' })
    })

    test('names and URLs of any length are accepted (hashed unique keys)', async () => {
      const long = 'n'.repeat(5000)
      await gates.create({ name: long, live_url: `http://l/${'x'.repeat(4000)}`, shadow_url: `http://s/${'y'.repeat(4000)}` })
      expect(create(long, 'other')).rejects.toBeInstanceOf(ConflictError)
    })

    test('of ten parallel creates with one name exactly one wins', async () => {
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => create('race', `race-${i}`)))
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
      const rejected = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[]
      expect(rejected).toHaveLength(9)
      for (const r of rejected) expect(r.reason).toBeInstanceOf(ConflictError)
    })

    test('of ten parallel creates with one URL pair exactly one wins', async () => {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => gates.create({ name: `pair-${i}`, live_url: 'http://l', shadow_url: 'http://s' })),
      )
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
      expect((await gates.list({ limit: 100, offset: 0, sort: 'name', order: 'asc' })).total).toBe(1)
    })
  })

  describe('update', () => {
    test('changes only the fields given', async () => {
      const gate = await create('before')
      const config = { ignored_fields: ['body.**.ts'], included_fields: [], float_tolerance: 0.01, sort_arrays: true }
      const renamed = await gates.update(gate.id, { name: 'after' })
      expect(renamed).toEqual({ ...gate, name: 'after' })
      const configured = await gates.update(gate.id, { diff_config: config, redacted_fields: ['body.user.email'] })
      expect(configured).toEqual({ ...gate, name: 'after', diff_config: config, redacted_fields: ['body.user.email'] })
      expect(await gates.update(gate.id, {})).toEqual(configured!)
    })

    test('retention is tri-state: a duration sets it, null and empty reset it, omitted keeps it', async () => {
      const gate = await create('ret')
      expect((await gates.update(gate.id, { retention: ' 1000h ' }))!.retention).toBe('1000h')
      expect((await gates.update(gate.id, { name: 'ret2' }))!.retention).toBe('1000h')
      expect((await gates.update(gate.id, { retention: null }))!.retention).toBe('')
      await gates.update(gate.id, { retention: '900h' })
      expect((await gates.update(gate.id, { retention: '' }))!.retention).toBe('')
    })

    test('a taken name is a conflict; an unknown gate is absent', async () => {
      await create('taken')
      const gate = await create('free')
      expect(gates.update(gate.id, { name: 'taken' })).rejects.toBeInstanceOf(ConflictError)
      expect(await gates.update(crypto.randomUUID(), { name: 'x' })).toBeUndefined()
    })
  })

  describe('delete', () => {
    test('removes the gate with its requests, payloads, rollups and counters', async () => {
      const gate = await create('doomed')
      const keep = await create('kept')
      await insertAll(requests, gate.id, [{}, { has_diff: true }, { method: 'POST' }])
      await insertAll(requests, keep.id, [{}])
      expect(await gates.delete(gate.id)).toBe(true)
      expect(await gates.delete(gate.id)).toBe(false)
      const [left] = await t.db.sql<{ requests: string; payloads: string; rollups: string; counters: string }[]>`
        SELECT (SELECT count(*) FROM requests) AS requests, (SELECT count(*) FROM request_payloads) AS payloads,
               (SELECT count(*) FROM request_rollups WHERE gate_id = ${gate.id}) AS rollups,
               (SELECT count(*) FROM gate_counters WHERE gate_id = ${gate.id}) AS counters`
      expect(left).toEqual({ requests: '1', payloads: '1', rollups: '0', counters: '0' })
      expect((await requests.list(gate.id, { limit: 10, offset: 0, sort: 'created_at', order: 'desc' })).total).toBe(0)
    })
  })

  describe('list', () => {
    async function names(query: Partial<Parameters<GateStore['list']>[0]>) {
      const page = await gates.list({ limit: 100, offset: 0, sort: 'name', order: 'asc', ...query })
      return { names: page.items.map((g) => g.name), total: page.total }
    }

    test('substring filters are literal and case-insensitive', async () => {
      for (const name of ['100%', '100 percent', 'a_b', 'axb', 'back\\slash', 'Orders-API', 'orders-web']) await create(name)
      expect(await names({ name: '%' })).toEqual({ names: ['100%'], total: 1 })
      expect(await names({ name: '_' })).toEqual({ names: ['a_b'], total: 1 })
      expect(await names({ name: '\\' })).toEqual({ names: ['back\\slash'], total: 1 })
      expect(await names({ name: 'ORDERS' })).toEqual({ names: ['Orders-API', 'orders-web'], total: 2 })
      expect(await names({ name: 'nothing' })).toEqual({ names: [], total: 0 })
    })

    test('live_url and shadow_url filters combine with name', async () => {
      await gates.create({ name: 'a', live_url: 'http://prod.example/v1', shadow_url: 'http://canary.example/v1' })
      await gates.create({ name: 'b', live_url: 'http://prod.example/v2', shadow_url: 'http://canary.example/v2' })
      await gates.create({ name: 'c', live_url: 'http://other/v1', shadow_url: 'http://canary.example/v3' })
      expect(await names({ live_url: 'prod.example' })).toEqual({ names: ['a', 'b'], total: 2 })
      expect(await names({ shadow_url: '/V1' })).toEqual({ names: ['a'], total: 1 })
      expect(await names({ live_url: 'prod', shadow_url: 'v2', name: 'b' })).toEqual({ names: ['b'], total: 1 })
    })

    test.each(GATE_SORT_KEYS.flatMap((sort) => [[sort, 'asc'], [sort, 'desc']] as const))(
      'sorts by %s %s, ties broken by id in the same direction',
      async (sort, order) => {
        // Pairs that tie on name's neighbours: equal live_url prefixes, equal created_at.
        for (const [name, live, shadow] of [
          ['b', 'http://x/1', 'http://y/2'],
          ['a', 'http://x/2', 'http://y/1'],
          ['C', 'http://x/3', 'http://y/3'],
          ['c', 'http://x/0', 'http://y/0'],
        ] as const) {
          await gates.create({ name, live_url: live, shadow_url: shadow })
        }
        // Two gates with the very same created_at, to exercise the id tie-break.
        await t.db.sql`
          UPDATE gates SET created_at = CASE name WHEN 'C' THEN timestamptz '2026-01-02T00:00:00Z'
            WHEN 'c' THEN timestamptz '2026-01-03T00:00:00Z' ELSE timestamptz '2026-01-01T00:00:00Z' END`
        const all = (await gates.list({ limit: 100, offset: 0, sort: 'id', order: 'asc' })).items
        const key = (g: Gate) => (sort === 'created_at' ? g.created_at : g[sort])
        const expected = [...all]
          .sort((x, y) => cmp(key(x), key(y)) || cmp(x.id, y.id))
          .map((g) => g.id)
        if (order === 'desc') expected.reverse()
        const page = await gates.list({ limit: 100, offset: 0, sort, order })
        expect(page.items.map((g) => g.id)).toEqual(expected)
      },
    )

    test('pages never overlap or skip, and the total survives an offset past the end', async () => {
      for (let i = 0; i < 7; i++) await create(`p${i}`)
      await t.db.sql`UPDATE gates SET created_at = '2026-01-01T00:00:00Z'`
      const seen: string[] = []
      for (let offset = 0; offset < 7; offset += 2) {
        const page = await gates.list({ limit: 2, offset, sort: 'created_at', order: 'desc' })
        expect(page.total).toBe(7)
        seen.push(...page.items.map((g) => g.id))
      }
      expect(new Set(seen).size).toBe(7)
      expect(await gates.list({ limit: 1, offset: 7, sort: 'created_at', order: 'desc' })).toEqual({ items: [], total: 7 })
      expect((await gates.list({ limit: 1, offset: 0, sort: 'created_at', order: 'desc' })).items).toHaveLength(1)
    })

    test('each gate of a page carries its own 24 h stats', async () => {
      const busy = await create('busy')
      const calm = await create('calm')
      const idle = await create('idle')
      const now = Date.now()
      await insertAll(requests, busy.id, [
        { has_diff: true },
        { has_diff: false },
        { has_diff: true, created_at: new Date(now - 2 * HOUR) },
        { created_at: new Date(now - 30 * HOUR) },
      ])
      await insertAll(requests, calm.id, [{ created_at: new Date(now - HOUR) }])
      const page = await gates.list({ limit: 10, offset: 0, sort: 'name', order: 'asc' })
      const stats = Object.fromEntries(page.items.map((g) => [g.name, g.stats]))
      expect(stats.busy).toEqual({ request_count_24h: 3, diff_count_24h: 2, diff_rate: 2 / 3, last_active: expect.any(String) })
      expect(stats.calm).toMatchObject({ request_count_24h: 1, diff_count_24h: 0, diff_rate: 0 })
      expect(stats.idle).toEqual({ request_count_24h: 0, diff_count_24h: 0, diff_rate: 0, last_active: null })
      expect(page.items.find((g) => g.name === 'busy')).toEqual((await gates.get(busy.id))!)
      expect(idle.stats.last_active).toBeNull()
    })
  })

})

function cmp(a: string, b: string): number {
  // Byte order, as the "C" collation sorts.
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return Buffer.compare(x, y)
}
