import { beforeAll, describe, expect, test } from 'bun:test'
import { ConflictError, InvalidBodyError, NotFoundError } from '../../../src/errors/app-error.ts'
import type { GateStore } from '../../../src/store/gate-store.ts'
import {
  REQUEST_SORT_KEYS,
  type RequestListQuery,
  type RequestStore,
} from '../../../src/store/request-store.ts'
import type { CaptureInput } from '../../../src/store/rows.ts'
import { BACKENDS, type TestDatabase } from '../../support/database.ts'
import { at, capture, insertAll, MINUTE, newGate, rollupDrift, SECOND, useStores, type CaptureSpec } from './fixtures.ts'

describe.each(BACKENDS)('request store on %s', (kind) => {
  let t: TestDatabase
  let gates: GateStore
  let requests: RequestStore

  useStores(kind, (stores) => ({ t, gates, requests } = stores))

  const page = (query: Partial<RequestListQuery> = {}): RequestListQuery => ({
    limit: 100,
    offset: 0,
    sort: 'created_at',
    order: 'desc',
    ...query,
  })

  describe('insert and get', () => {
    test('keeps every byte, header, id and diff operation', async () => {
      const gateId = await newGate(gates)
      const bytes = Uint8Array.from({ length: 256 }, (_, i) => i)
      const c = capture({
        raw_query: 'a=1&b=%20',
        headers: { 'X-Multi': ['one', 'two'], Authorization: ['[REDACTED]'] },
        body: bytes,
        has_diff: true,
        diff: [
          { op: 'replace', path: '/body/price', value: { amount: 1.5, tags: ['a', null] } },
          { op: 'remove', path: '/headers/X-Old' },
          { op: 'add', path: '/body/new~1field', value: null },
        ],
      })
      c.created_at = '2026-03-04T05:06:07.123456+02:00'
      c.live_response.body = new Uint8Array([0, 0xff, 0x80])
      const { summary, created } = await requests.insert(gateId, c)
      expect(created).toBe(true)
      expect(summary).toEqual({
        id: c.id,
        method: 'GET',
        path: '/api/items',
        raw_query: 'a=1&b=%20',
        created_at: '2026-03-04T03:06:07.123Z',
        live_response: { status_code: 200, latency_ms: 12 },
        shadow_response: { status_code: 500, latency_ms: 15 },
        has_diff: true,
        template: '/api/items',
        signature_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      })
      const detail = await requests.get(gateId, c.id)
      expect(detail).toEqual({
        id: c.id,
        method: 'GET',
        path: '/api/items',
        raw_query: 'a=1&b=%20',
        headers: { 'X-Multi': ['one', 'two'], Authorization: ['[REDACTED]'] },
        body: expect.anything(),
        created_at: '2026-03-04T03:06:07.123Z',
        live_response: {
          id: c.live_response.id,
          status_code: 200,
          headers: { 'Content-Type': ['application/json'] },
          body: expect.anything(),
          latency_ms: 12,
          created_at: (c.live_response.created_at as Date).toISOString(),
        },
        shadow_response: {
          id: c.shadow_response.id,
          status_code: 500,
          headers: { 'Content-Type': ['application/json'] },
          body: expect.anything(),
          latency_ms: 15,
          created_at: (c.shadow_response.created_at as Date).toISOString(),
        },
        diff: { content: c.diff },
        template: '/api/items',
        signature_id: summary.signature_id,
        live_repeat_response: null,
        noise: null,
      })
      expect([...detail!.body]).toEqual([...bytes])
      expect([...detail!.live_response.body]).toEqual([0, 0xff, 0x80])
      expect(new TextDecoder().decode(detail!.shadow_response.body)).toBe('{"a":2}')
    })

    test('omits an empty raw_query and keeps large latencies', async () => {
      const gateId = await newGate(gates)
      const c = capture()
      c.live_response.latency_ms = 2 ** 40
      const { summary } = await requests.insert(gateId, c)
      expect('raw_query' in summary).toBe(false)
      expect(summary.live_response.latency_ms).toBe(2 ** 40)
      expect('raw_query' in (await requests.get(gateId, c.id))!).toBe(false)
    })

    test('the same id under the same gate is stored and counted once', async () => {
      const gateId = await newGate(gates)
      const c = capture({ has_diff: true })
      const first = await requests.insert(gateId, c)
      // The verdict and the ids are not content: a retry may recompute or omit them.
      const retry = { ...c, has_diff: false, diff: [], live_response: { ...c.live_response, id: crypto.randomUUID() } }
      const again = await requests.insert(gateId, retry)
      expect(again).toEqual({ summary: first.summary, created: false })
      expect((await requests.list(gateId, page())).total).toBe(1)
      expect((await requests.list(gateId, page({ has_diff: true }))).total).toBe(1)
      expect((await gates.get(gateId))!.stats).toMatchObject({ request_count_24h: 1, diff_count_24h: 1 })
      expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
    })

    test.each([
      ['path', (c: CaptureInput): CaptureInput => ({ ...c, path: '/changed' })],
      ['method', (c: CaptureInput): CaptureInput => ({ ...c, method: 'POST' })],
      ['raw_query', (c: CaptureInput): CaptureInput => ({ ...c, raw_query: 'a=1' })],
      ['created_at', (c: CaptureInput): CaptureInput => ({ ...c, created_at: new Date((c.created_at as Date).getTime() + 1) })],
      ['request headers', (c: CaptureInput): CaptureInput => ({ ...c, headers: { Accept: ['text/plain'] } })],
      ['request body', (c: CaptureInput): CaptureInput => ({ ...c, body: new Uint8Array([1]) })],
      ['live status', (c: CaptureInput): CaptureInput => ({ ...c, live_response: { ...c.live_response, status_code: 201 } })],
      ['shadow body', (c: CaptureInput): CaptureInput => ({ ...c, shadow_response: { ...c.shadow_response, body: new Uint8Array([9]) } })],
      ['shadow latency', (c: CaptureInput): CaptureInput => ({ ...c, shadow_response: { ...c.shadow_response, latency_ms: 999 } })],
    ])('the same id with another %s is a conflict and changes nothing', async (_, change) => {
      const gateId = await newGate(gates)
      const c = capture()
      const first = await requests.insert(gateId, c)
      await expect(requests.insert(gateId, change(c))).rejects.toThrow(/exists with different content/)
      expect(await requests.get(gateId, c.id)).toMatchObject({ path: first.summary.path, method: first.summary.method })
      expect((await requests.list(gateId, page())).total).toBe(1)
      expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
    })

    test('a row stored without a content hash (before it existed) takes the same id as a retry', async () => {
      const gateId = await newGate(gates)
      const c = capture()
      const first = await requests.insert(gateId, c)
      await t.db.sql`UPDATE request_payloads SET content_hash = NULL WHERE request_id = ${c.id}`
      expect(await requests.insert(gateId, { ...c, path: '/changed' })).toEqual({ summary: first.summary, created: false })
    })

    test('of parallel inserts of one id exactly one creates', async () => {
      const gateId = await newGate(gates)
      const c = capture()
      const results = await Promise.all(Array.from({ length: 8 }, () => requests.insert(gateId, c)))
      expect(results.filter((r) => r.created)).toHaveLength(1)
      expect(new Set(results.map((r) => JSON.stringify(r.summary))).size).toBe(1)
      expect((await requests.list(gateId, page())).total).toBe(1)
      expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
    })

    test('the same id under another gate is a conflict and changes nothing', async () => {
      const first = await newGate(gates)
      const second = await newGate(gates)
      const c = capture()
      await requests.insert(first, c)
      expect(requests.insert(second, c)).rejects.toBeInstanceOf(ConflictError)
      expect((await requests.list(second, page())).total).toBe(0)
      expect(await requests.get(second, c.id)).toBeUndefined()
      expect(await rollupDrift(t.db.sql, second)).toEqual([])
    })

    test('an unknown gate is not found; malformed input is a body error', async () => {
      expect(requests.insert(crypto.randomUUID(), capture())).rejects.toBeInstanceOf(NotFoundError)
      expect(requests.insert('nope', capture())).rejects.toBeInstanceOf(NotFoundError)
      const gateId = await newGate(gates)
      expect(requests.insert(gateId, { ...capture(), id: 'not-a-uuid' })).rejects.toBeInstanceOf(InvalidBodyError)
      expect(requests.insert(gateId, { ...capture(), created_at: 'yesterday-ish' })).rejects.toBeInstanceOf(InvalidBodyError)
    })

    test('get answers only under the request\'s own gate', async () => {
      const gateId = await newGate(gates)
      const other = await newGate(gates)
      const c = capture()
      await requests.insert(gateId, c)
      expect(await requests.get(other, c.id)).toBeUndefined()
      expect(await requests.get(gateId, crypto.randomUUID())).toBeUndefined()
      expect(await requests.get(gateId, 'nope')).toBeUndefined()
    })
  })

  describe('list', () => {
    // Around a minute boundary T0, so that ranges start and end inside,
    // exactly on, and across the rollups' minutes.
    const T0 = new Date(Math.floor(Date.now() / MINUTE) * MINUTE - 3 * MINUTE)
    const offsets = [-61 * SECOND, -MINUTE, -MINUTE + 1, -1, 0, 0, 1, 30 * SECOND, MINUTE - 1, MINUTE, MINUTE + 1, 2 * MINUTE, 2 * MINUTE + 30 * SECOND]
    const methods = ['GET', 'POST', 'DELETE', 'GET', 'PUT']
    const paths = [
      '/api/users/1',
      '/api/users/10',
      '/api/Users/2',
      '/api/orders/1',
      '/files/100%_done',
      '/files/a_b',
      '/files/axb',
      '/x\\y',
      `/long/${'p'.repeat(600)}/b`,
      `/long/${'p'.repeat(600)}/a`,
      '/api/users/1',
    ]
    let gateId: string
    let rows: CaptureInput[]

    beforeAll(async () => {
      gateId = await newGate(gates)
      const specs: CaptureSpec[] = []
      let i = 0
      for (const offset of offsets) {
        for (let k = 0; k < 4; k++, i++) {
          specs.push({
            created_at: at(T0, offset),
            method: methods[i % methods.length],
            path: paths[i % paths.length],
            raw_query: i % 3 === 0 ? `i=${i}` : '',
            has_diff: i % 4 === 1 || i % 7 === 0,
          })
        }
      }
      rows = await insertAll(requests, gateId, specs)
    })

    /**
     * The documented semantics (docs/reference/api.md "listRequests"), computed
     * in memory from what was inserted.
     */
    function expected(query: RequestListQuery): string[] {
      const time = (c: CaptureInput) => (c.created_at as Date).getTime()
      const pathRe = query.path === undefined
        ? undefined
        : new RegExp(query.path.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*'))
      const matching = rows.filter(
        (c) =>
          (!query.method?.length || query.method.includes(c.method)) &&
          (pathRe === undefined || pathRe.test(c.path)) &&
          (query.from === undefined || time(c) >= query.from.getTime()) &&
          (query.to === undefined || time(c) <= query.to.getTime()) &&
          (query.has_diff === undefined || c.has_diff === query.has_diff),
      )
      const key = (c: CaptureInput): string | number =>
        query.sort === 'created_at' ? time(c) : query.sort === 'method' ? c.method : c.path.slice(0, 512)
      const cmp = (a: string | number, b: string | number) =>
        typeof a === 'number' ? a - (b as number) : Buffer.compare(Buffer.from(a), Buffer.from(b as string))
      matching.sort((a, b) => cmp(key(a), key(b)) || cmp(a.id, b.id))
      if (query.order === 'desc') matching.reverse()
      return matching.map((c) => c.id)
    }

    async function check(query: RequestListQuery) {
      const all = expected(query)
      const result = await requests.list(gateId, query)
      expect({ total: result.total, ids: result.items.map((r) => r.id) }).toEqual({
        total: all.length,
        ids: all.slice(query.offset, query.offset + query.limit),
      })
    }

    test.each(REQUEST_SORT_KEYS.flatMap((sort) => [[sort, 'asc'], [sort, 'desc']] as const))(
      'sorts by %s %s with ties broken by id',
      async (sort, order) => {
        await check(page({ sort, order }))
      },
    )

    test('a path longer than 512 characters sorts by its first 512, then id', async () => {
      const result = await requests.list(gateId, page({ path: '/long/', sort: 'path', order: 'asc' }))
      const ids = result.items.map((r) => r.id)
      expect(ids).toEqual([...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))))
    })

    test.each([
      ['users', 'case-sensitive substring'],
      ['Users', 'case-sensitive substring'],
      ['/api/*/1', '* inside'],
      ['*', 'lone *'],
      ['/files/*_', '* then a literal _'],
      ['%', 'literal %'],
      ['_', 'literal _'],
      ['\\', 'literal backslash'],
      ['100%_done', 'metacharacters together'],
      ['nothing-like-this', 'no match'],
    ])('filters path %p (%s)', async (path) => {
      await check(page({ path }))
      await check(page({ path, has_diff: true, sort: 'path', order: 'asc' }))
      await check(page({ path, has_diff: false, method: ['GET', 'PUT'], limit: 2 }))
    })

    const ranges: [string, Date | undefined, Date | undefined][] = [
      ['open', undefined, undefined],
      ['from on a minute', T0, undefined],
      ['from inside a minute', at(T0, 1), undefined],
      ['from just before a minute', at(T0, -1), undefined],
      ['to just before a minute', undefined, at(T0, MINUTE - 1)],
      ['to on a minute', undefined, at(T0, MINUTE)],
      ['within one minute', at(T0, 1), at(T0, 30 * SECOND)],
      ['one exact minute', T0, at(T0, MINUTE - 1)],
      ['across minutes', at(T0, -MINUTE + 1), at(T0, 2 * MINUTE)],
      ['empty (to before from)', at(T0, MINUTE), T0],
      ['a single instant', T0, T0],
    ]
    const filterSets: [string, Partial<RequestListQuery>][] = [
      ['no filter', {}],
      ['GET', { method: ['GET'] }],
      ['POST,DELETE', { method: ['POST', 'DELETE'] }],
      ['has_diff', { has_diff: true }],
      ['no diff', { has_diff: false }],
      ['PUT with diff', { method: ['PUT'], has_diff: true }],
      ['path too', { method: ['GET'], path: 'users' }],
    ]
    test.each(ranges)('counts exactly over a range: %s', async (_, from, to) => {
      for (const [, filters] of filterSets) await check(page({ from, to, limit: 3, ...filters }))
    })

    test('pages never overlap or skip, even across long ties', async () => {
      const seen: string[] = []
      for (let offset = 0; offset < rows.length; offset += 7) {
        const result = await requests.list(gateId, page({ sort: 'method', order: 'asc', limit: 7, offset }))
        expect(result.total).toBe(rows.length)
        seen.push(...result.items.map((r) => r.id))
      }
      expect(seen).toEqual(expected(page({ sort: 'method', order: 'asc' })))
    })

    test('an offset past the end gives no items and the full total', async () => {
      await check(page({ offset: rows.length, limit: 1 }))
      await check(page({ offset: rows.length + 100, limit: 100, method: ['GET'] }))
      await check(page({ limit: 1 }))
    })

    test('another gate\'s requests never show', async () => {
      const other = await newGate(gates)
      await insertAll(requests, other, [{ created_at: T0 }, { created_at: T0, method: 'POST' }])
      await check(page({ from: T0, to: T0 }))
      expect((await requests.list(other, page())).total).toBe(2)
    })

    test('the rollups match the rows', async () => {
      expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
    })
  })
})
