import { beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { GateStore } from '../../../src/store/gate-store.ts'
import { MAX_LOOKUP_PATHS, resolvePathMatch } from '../../../src/store/path-match.ts'
import { rebuildRollups } from '../../../src/store/rebuild-rollups.ts'
import {
  REQUEST_SORT_KEYS,
  type RequestListQuery,
  type RequestStore,
} from '../../../src/store/request-store.ts'
import type { CaptureInput } from '../../../src/store/rows.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS, type TestDatabase } from '../../support/database.ts'
import { at, insertAll, MINUTE, newGate, rollupDrift, useStores } from './fixtures.ts'

describe.each(BACKENDS)('path filter on %s', (kind) => {
  let t: TestDatabase
  let gates: GateStore
  let requests: RequestStore

  useStores(kind, (stores) => ({ t, gates, requests } = stores))

  describe('resolving a pattern to the stored paths', () => {
    let gateId: string
    beforeAll(async () => {
      gateId = await newGate(gates)
      await insertAll(requests, gateId, [
        { path: '/a/1' },
        { path: '/a/2', method: 'POST' },
        { path: '/b/1' },
        { path: `/long/${'x'.repeat(600)}` },
      ])
    })

    test('no stored path matches: nothing to read', async () => {
      expect(await resolvePathMatch(t.db.sql, gateId, '/zzz', undefined)).toEqual({ kind: 'none' })
      expect(await requests.list(gateId, { limit: 10, offset: 0, sort: 'created_at', order: 'desc', path: '/zzz' })).toEqual({
        items: [],
        total: 0,
      })
    })

    test('the matching paths, narrowed by the methods they were stored with', async () => {
      const all = await resolvePathMatch(t.db.sql, gateId, '/a/', undefined)
      expect(all.kind === 'paths' && [...all.paths].sort()).toEqual(['/a/1', '/a/2'])
      expect(await resolvePathMatch(t.db.sql, gateId, '/a/', ['POST'])).toEqual({ kind: 'paths', paths: ['/a/2'], requests: 1, diffs: 0 })
      expect(await resolvePathMatch(t.db.sql, gateId, '/a/', ['DELETE'])).toEqual({ kind: 'none' })
    })

    test('a path of 512 characters or more is matched with LIKE (the index keeps only 512)', async () => {
      expect((await resolvePathMatch(t.db.sql, gateId, '/long/', undefined)).kind).toBe('pattern')
      expect((await resolvePathMatch(t.db.sql, gateId, '/', undefined)).kind).toBe('pattern')
    })

    test(`more than ${MAX_LOOKUP_PATHS} matching paths are matched with LIKE, with exact results`, async () => {
      const busy = await newGate(gates)
      const n = MAX_LOOKUP_PATHS + 5
      await t.db.sql`
        INSERT INTO requests (id, gate_id, method, path, raw_query, created_at,
          live_status, live_latency_ms, shadow_status, shadow_latency_ms, has_diff)
        SELECT gen_random_uuid(), ${busy}::uuid, 'GET', '/item/' || g, '', now() - g * interval '1 second', 200, 1, 200, 1, g % 3 = 0
        FROM generate_series(1, ${n}::int) AS g`
      await rebuildRollups(t.db.sql, busy)
      expect((await resolvePathMatch(t.db.sql, busy, '/item/', undefined)).kind).toBe('pattern')
      const query = { limit: 5, offset: 0, sort: 'created_at', order: 'desc', path: '/item/' } as const
      const result = await requests.list(busy, query)
      expect(result.total).toBe(n)
      expect(result.items.map((r) => r.path)).toEqual(['/item/1', '/item/2', '/item/3', '/item/4', '/item/5'])
      // Rows 1-30 are within the last 30.5 s; every third has a diff.
      expect((await requests.list(busy, { ...query, has_diff: true, from: new Date(Date.now() - 30_500) })).total).toBe(10)
      expect(await rollupDrift(t.db.sql, busy)).toEqual([])
    })
  })

  describe('matches as an unanchored substring with * for any sequence, for any pattern', () => {
    // Few letters, so that random patterns often match; `*` and LIKE's own metacharacters included.
    const ALPHABET = ['/', 'a', 'b', '1', '%', '_', '\\']
    const T0 = new Date(Math.floor(Date.now() / MINUTE) * MINUTE - 10 * MINUTE)
    let gateId: string
    let rows: CaptureInput[]

    beforeAll(async () => {
      gateId = await newGate(gates)
      const random = fc.sample(fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 6 }), { numRuns: 60, seed: 7 })
      const paths = [...new Set(random.map((chars) => `/${chars.join('')}`)), `/a/${'b'.repeat(520)}`]
      rows = await insertAll(
        requests,
        gateId,
        paths.flatMap((path, i) => [
          { path, created_at: at(T0, i * 1000), has_diff: i % 3 === 0 },
          { path, created_at: at(T0, i * 7000 + 500), method: i % 2 ? 'POST' : 'GET' },
        ]),
      )
    }, DATABASE_HOOK_TIMEOUT_MS)

    function expected(query: RequestListQuery): { total: number; ids: string[] } {
      const re = new RegExp(query.path!.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*'))
      const time = (c: CaptureInput) => (c.created_at as Date).getTime()
      const matching = rows.filter(
        (c) =>
          re.test(c.path) &&
          (!query.method?.length || query.method.includes(c.method)) &&
          (query.from === undefined || time(c) >= query.from.getTime()) &&
          (query.has_diff === undefined || c.has_diff === query.has_diff),
      )
      const key = (c: CaptureInput): string | number =>
        query.sort === 'created_at' ? time(c) : query.sort === 'method' ? c.method : c.path.slice(0, 512)
      const cmp = (a: string | number, b: string | number) =>
        typeof a === 'number' ? a - (b as number) : Buffer.compare(Buffer.from(a), Buffer.from(b as string))
      matching.sort((a, b) => cmp(key(a), key(b)) || cmp(a.id, b.id))
      if (query.order === 'desc') matching.reverse()
      return { total: matching.length, ids: matching.slice(query.offset, query.offset + query.limit).map((c) => c.id) }
    }

    test('total and page equal an in-memory filter', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom(...ALPHABET, '*'), { minLength: 1, maxLength: 4 }),
          fc.constantFrom(...REQUEST_SORT_KEYS),
          fc.constantFrom('asc' as const, 'desc' as const),
          fc.option(fc.constantFrom('GET', 'POST').map((m) => [m]), { nil: undefined }),
          fc.option(fc.boolean(), { nil: undefined }),
          fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
          async (chars, sort, order, method, hasDiff, fromSeconds) => {
            const query: RequestListQuery = {
              limit: 7,
              offset: 0,
              sort,
              order,
              path: chars.join(''),
              method,
              has_diff: hasDiff,
              from: fromSeconds === undefined ? undefined : at(T0, fromSeconds * 1000),
            }
            const result = await requests.list(gateId, query)
            expect({ total: result.total, ids: result.items.map((r) => r.id) }).toEqual(expected(query))
          },
        ),
        { numRuns: 60, seed: 42 },
      )
    })
  })
})
