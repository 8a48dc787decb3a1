import { beforeAll, describe, expect, test } from 'bun:test'
import { signatureOf, type Signature } from '../../../src/insights/index.ts'
import { compactRollups, runCleanup } from '../../../src/store/cleanup.ts'
import type { GateStore } from '../../../src/store/gate-store.ts'
import { insightDrift } from '../../support/insight-drift.ts'
import {
  ENDPOINT_SORT_KEYS,
  FIELD_SORT_KEYS,
  SIGNATURE_SORT_KEYS,
  type InsightWindow,
} from '../../../src/store/insight-queries.ts'
import { createInsightsStore, type InsightsStore } from '../../../src/store/insights-store.ts'
import type { RequestStore } from '../../../src/store/request-store.ts'
import type { CaptureInput } from '../../../src/store/rows.ts'
import { BACKENDS, type TestDatabase } from '../../support/database.ts'
import { at, capture, HOUR, MINUTE, newGate, rollupDrift, useStores } from './fixtures.ts'

/** A small deterministic generator, so every run stores the same captures. */
function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

const BASE = new Date('2026-05-10T00:00:00.000Z')
const PATHS = ['/users/{n}', '/users/{n}/orders', '/v2/search', '/orders/{n}', '/health']
const DIFFS: Array<(n: number) => CaptureInput['diff']> = [
  (n) => [{ op: 'replace', path: `/body/items/${n % 7}/price`, value: n }],
  (n) => [
    { op: 'add', path: '/body/stock/reserved', value: n },
    { op: 'replace', path: `/body/items/${n % 3}/price`, value: 1 },
  ],
  () => [{ op: 'remove', path: '/headers/x-trace' }],
  (n) => [{ op: 'replace', path: `/body/by_sku/sku-${10_000 + n}/qty`, value: n }],
]

interface Stored {
  capture: CaptureInput
  method: string
  template: string
  signature: Signature | undefined
}

/** ~400 captures over 30 hours from BASE, five paths, two methods, diffs of four shapes, some failed shadows. */
function dataset(): Stored[] {
  const next = random(20_261_126)
  const out: Stored[] = []
  for (let i = 0; i < 400; i++) {
    const n = Math.floor(next() * 1000)
    const path = PATHS[i % PATHS.length]!.replace('{n}', String(100 + n))
    const template = PATHS[i % PATHS.length]!.replace('{n}', '{id}')
    const method = i % 4 === 3 ? 'POST' : 'GET'
    const roll = next()
    const failed = roll < 0.05
    const diff = !failed && roll < 0.35 ? DIFFS[Math.floor(next() * DIFFS.length)]!(n) : []
    const c = capture({
      method,
      path,
      created_at: at(BASE, Math.floor(next() * 30 * HOUR)),
      has_diff: failed || diff.length > 0,
      diff,
    })
    c.live_response.latency_ms = Math.floor(next() * 300)
    c.shadow_response.latency_ms = Math.floor(next() * 3000)
    if (failed) {
      c.shadow_response.status_code = 0
      c.shadow_response.body = new TextEncoder().encode(n % 2 ? 'shadow: timed out after 2s' : 'shadow: connection refused')
    } else if (diff.length === 0) {
      c.shadow_response.status_code = 200
    }
    const signature = c.has_diff
      ? signatureOf(
          { method, template },
          {
            live: { status: c.live_response.status_code, body: c.live_response.body },
            shadow: { status: c.shadow_response.status_code, body: c.shadow_response.body },
            ops: c.diff,
          },
        )
      : undefined
    out.push({ capture: c, method, template, signature })
  }
  return out
}

const minute = (d: Date | string) => Math.floor(new Date(d).getTime() / MINUTE) * MINUTE

/** The model of a window: the minutes from the one holding `from` to the one holding `to`. */
function inWindow(s: Stored, window: Required<InsightWindow>): boolean {
  const m = minute(s.capture.created_at as Date)
  return m >= minute(window.from) && m <= minute(window.to)
}

function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!
}

const WINDOWS: Array<[string, Required<InsightWindow>]> = [
  ['everything', { from: at(BASE, -HOUR), to: at(BASE, 31 * HOUR) }],
  ['whole hours', { from: at(BASE, 2 * HOUR), to: at(BASE, 5 * HOUR - 1) }],
  ['hours with minutes around', { from: at(BASE, 2 * HOUR + 17 * MINUTE + 5_000), to: at(BASE, 9 * HOUR + 41 * MINUTE + 59_999) }],
  ['inside one hour', { from: at(BASE, 3 * HOUR + 10 * MINUTE), to: at(BASE, 3 * HOUR + 50 * MINUTE) }],
  ['across one hour boundary', { from: at(BASE, 3 * HOUR + 40 * MINUTE), to: at(BASE, 4 * HOUR + 20 * MINUTE) }],
  ['from on an hour, to inside', { from: at(BASE, 6 * HOUR), to: at(BASE, 8 * HOUR + 30 * MINUTE) }],
  ['one minute', { from: at(BASE, 12 * HOUR + 7 * MINUTE + 30_000), to: at(BASE, 12 * HOUR + 7 * MINUTE + 30_001) }],
  ['before everything', { from: at(BASE, -10 * HOUR), to: at(BASE, -2 * HOUR) }],
]

describe.each(BACKENDS)('insights store on %s', (kind) => {
  let t: TestDatabase
  let gates: GateStore
  let requests: RequestStore
  let insights: InsightsStore
  let gateId: string
  const stored = dataset()

  useStores(kind, (stores) => {
    ;({ t, gates, requests } = stores)
    insights = createInsightsStore(t.db.sql)
  })

  beforeAll(async () => {
    gateId = await newGate(gates)
    for (let i = 0; i < stored.length; i += 25) {
      await Promise.all(stored.slice(i, i + 25).map((s) => requests.insert(gateId, s.capture)))
    }
  }, 120_000)

  const all = { limit: 100, offset: 0, order: 'asc' as const }

  test('every capture is stored with its template and signature; the rollups are exact', async () => {
    const rows = await t.db.sql<{ id: string; template: string; signature_id: string | null }[]>`
      SELECT id, template, signature_id FROM requests WHERE gate_id = ${gateId}`
    const byId = new Map(rows.map((row) => [row.id, row]))
    for (const s of stored) {
      expect(byId.get(s.capture.id)).toEqual({ id: s.capture.id, template: s.template, signature_id: s.signature?.id ?? null })
    }
    expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
  })

  test.each(WINDOWS)('endpoints in a window (%s) count what the model counts', async (_, window) => {
    const expected = new Map<string, { requests: number; diffs: number; errors: number; live: number[]; shadow: number[] }>()
    for (const s of stored.filter((s) => inWindow(s, window))) {
      const key = `${s.template} ${s.method}`
      const e = expected.get(key) ?? { requests: 0, diffs: 0, errors: 0, live: [], shadow: [] }
      e.requests++
      if (s.signature?.kind === 'diff') e.diffs++
      if (s.signature?.kind === 'error') e.errors++
      e.live.push(s.capture.live_response.latency_ms)
      e.shadow.push(s.capture.shadow_response.latency_ms)
      expected.set(key, e)
    }
    const page = await insights.endpoints(gateId, { ...all, ...window, sort: 'template' })
    expect(page.total).toBe(expected.size)
    expect(page.items.map((e) => `${e.template} ${e.method}`)).toEqual([...expected.keys()].sort())
    for (const e of page.items) {
      const model = expected.get(`${e.template} ${e.method}`)!
      expect([e.requests, e.diffs, e.errors, e.diff_rate]).toEqual([model.requests, model.diffs, model.errors, model.diffs / model.requests])
      // Fixed buckets: within 12.5 % of the exact nearest-rank percentile (docs/storage.md).
      for (const [side, values] of [[e.live_latency_ms, model.live], [e.shadow_latency_ms, model.shadow]] as const) {
        for (const q of [0.5, 0.95] as const) {
          const exact = nearestRank(values, q)
          const got = side[q === 0.5 ? 'p50' : 'p95']!
          expect(Math.abs(got - exact)).toBeLessThanOrEqual(0.125 * exact)
        }
      }
    }
  })

  test.each(WINDOWS)('signatures and fields in a window (%s) count what the model counts', async (_, window) => {
    const inside = stored.filter((s) => inWindow(s, window) && s.signature !== undefined)
    const bySignature = Map.groupBy(inside, (s) => s.signature!.id)
    const page = await insights.signatures(gateId, { ...all, ...window, sort: 'first_seen' })
    expect(page.total).toBe(bySignature.size)
    for (const item of page.items) {
      const captures = bySignature.get(item.id)!
      const times = captures.map((s) => (s.capture.created_at as Date).getTime())
      const latest = captures.reduce((a, b) => {
        const ta = (a.capture.created_at as Date).getTime()
        const tb = (b.capture.created_at as Date).getTime()
        return tb > ta || (tb === ta && b.capture.id > a.capture.id) ? b : a
      })
      const signature = captures[0]!.signature!
      expect(item).toEqual({
        id: signature.id,
        kind: signature.kind,
        method: signature.method,
        template: signature.template,
        ops: signature.kind === 'diff' ? [...signature.ops] : [],
        truncated: signature.kind === 'diff' ? signature.truncated : false,
        live_error: signature.kind === 'error' ? signature.liveError : null,
        shadow_error: signature.kind === 'error' ? signature.shadowError : null,
        overflow: false,
        count: captures.length,
        share: captures.length / inside.length,
        first_seen: new Date(Math.min(...times)).toISOString(),
        last_seen: new Date(Math.max(...times)).toISOString(),
        example_request_id: latest.capture.id,
      })
    }

    // Fields: per endpoint and generalised (op, path), over the endpoint's requests in the window.
    const fields = new Map<string, number>()
    for (const s of inside) {
      if (s.signature?.kind !== 'diff') continue
      for (const op of s.signature.ops) {
        const key = `${s.method} ${s.template} ${op.op} ${op.path}`
        fields.set(key, (fields.get(key) ?? 0) + 1)
      }
    }
    const requestsOf = (method: string, template: string) =>
      stored.filter((s) => inWindow(s, window) && s.method === method && s.template === template).length
    const fieldPage = await insights.fields(gateId, { ...all, ...window, sort: 'path' })
    expect(fieldPage.total).toBe(fields.size)
    for (const f of fieldPage.items) {
      const count = fields.get(`${f.method} ${f.template} ${f.op} ${f.path}`)
      expect([f.count, f.rate]).toEqual([count!, count! / requestsOf(f.method, f.template)])
    }
  })

  test('an error signature carries the class of the failed side; array indices and id-like keys are generalised', async () => {
    const window = WINDOWS[0]![1]
    const errors = await insights.signatures(gateId, { ...all, ...window, sort: 'count', kind: 'error' })
    expect(new Set(errors.items.map((s) => s.shadow_error))).toEqual(new Set(['timeout', 'refused']))
    expect(errors.items.every((s) => s.live_error === null && s.ops.length === 0)).toBe(true)
    const paths = (await insights.fields(gateId, { ...all, ...window, sort: 'path' })).items.map((f) => f.path)
    expect(new Set(paths)).toEqual(new Set(['/body/items/*/price', '/body/stock/reserved', '/headers/x-trace', '/body/by_sku/{key}/qty']))
  })

  test('filters: method, template and kind combine, and share is over what they keep', async () => {
    const window = WINDOWS[0]![1]
    const page = await insights.signatures(gateId, { ...all, ...window, sort: 'count', method: ['POST'], template: '/users/{id}', kind: 'diff' })
    const model = stored.filter((s) => s.method === 'POST' && s.template === '/users/{id}' && s.signature?.kind === 'diff')
    expect(page.items.reduce((sum, s) => sum + s.count, 0)).toBe(model.length)
    expect(page.items.reduce((sum, s) => sum + s.share, 0)).toBeCloseTo(1, 10)
    expect(page.items.every((s) => s.method === 'POST' && s.template === '/users/{id}' && s.kind === 'diff')).toBe(true)
    const fields = await insights.fields(gateId, { ...all, ...window, sort: 'count', method: ['GET'], template: '/v2/search' })
    expect(fields.items.every((f) => f.method === 'GET' && f.template === '/v2/search')).toBe(true)
    expect(fields.total).toBeGreaterThan(0)
  })

  describe('pages never overlap and follow the sort, in both orders', () => {
    const window = WINDOWS[0]![1]
    const walk = async <T>(read: (offset: number) => Promise<{ items: T[]; total: number }>) => {
      const seen: T[] = []
      for (let offset = 0; ; offset += 3) {
        const page = await read(offset)
        seen.push(...page.items)
        if (page.items.length < 3) return { seen, total: page.total }
      }
    }
    const check = <T>(seen: T[], total: number, key: (item: T) => string, value: (item: T) => number | string, order: 'asc' | 'desc') => {
      expect(seen.length).toBe(total)
      expect(new Set(seen.map(key)).size).toBe(total)
      const values = seen.map(value)
      const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      expect(values).toEqual(order === 'asc' ? sorted : sorted.reverse())
    }
    test.each(ENDPOINT_SORT_KEYS.flatMap((sort) => (['asc', 'desc'] as const).map((order) => [sort, order] as const)))(
      'endpoints by %s %s',
      async (sort, order) => {
        const { seen, total } = await walk((offset) => insights.endpoints(gateId, { ...window, limit: 3, offset, sort, order }))
        check(seen, total, (e) => `${e.method} ${e.template}`, (e) => (sort === 'template' ? e.template : e[sort]), order)
      },
    )
    test.each(SIGNATURE_SORT_KEYS.flatMap((sort) => (['asc', 'desc'] as const).map((order) => [sort, order] as const)))(
      'signatures by %s %s',
      async (sort, order) => {
        const { seen, total } = await walk((offset) => insights.signatures(gateId, { ...window, limit: 3, offset, sort, order }))
        check(seen, total, (s) => s.id, (s) => s[sort], order)
      },
    )
    test.each(FIELD_SORT_KEYS.flatMap((sort) => (['asc', 'desc'] as const).map((order) => [sort, order] as const)))(
      'fields by %s %s',
      async (sort, order) => {
        const { seen, total } = await walk((offset) => insights.fields(gateId, { ...window, limit: 3, offset, sort, order }))
        check(seen, total, (f) => `${f.method} ${f.template} ${f.op} ${f.path}`, (f) => (sort === 'count' ? f.count : f[sort]), order)
      },
    )
  })

  test('a page past the end is empty and still says how many there are', async () => {
    const page = await insights.endpoints(gateId, { ...WINDOWS[0]![1], limit: 10, offset: 1000, sort: 'requests', order: 'desc' })
    expect(page.items).toEqual([])
    expect(page.total).toBe(new Set(stored.map((s) => `${s.method} ${s.template}`)).size)
  })

  test('folding shards and a cleanup keep reads and rollups exact; a deleted gate leaves no insight rows', async () => {
    const window = WINDOWS[0]![1]
    const before = await insights.signatures(gateId, { ...all, ...window, sort: 'count' })
    await compactRollups(t.db.sql, { now: at(BASE, 40 * HOUR) })
    expect(await insights.signatures(gateId, { ...all, ...window, sort: 'count' })).toEqual(before)
    const [unfolded] = await t.db.sql<{ n: string }[]>`
      SELECT count(*) AS n FROM endpoint_rollups WHERE gate_id = ${gateId} AND shard <> 0`
    expect(Number(unfolded!.n)).toBe(0)

    // Keep the last 12 hours of the dataset: the cleanup takes the rest out of every rollup.
    const now = at(BASE, 42 * HOUR)
    await runCleanup(t.db.sql, { floorMs: 12 * HOUR, batchSize: 7, now })
    const kept = stored.filter((s) => (s.capture.created_at as Date).getTime() >= now.getTime() - 12 * HOUR)
    expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
    const endpoints = await insights.endpoints(gateId, { ...all, ...window, sort: 'template' })
    expect(endpoints.items.reduce((sum, e) => sum + e.requests, 0)).toBe(kept.length)
    const signatures = await insights.signatures(gateId, { ...all, ...window, sort: 'count' })
    expect(signatures.items.reduce((sum, s) => sum + s.count, 0)).toBe(kept.filter((s) => s.signature).length)
    const [zero] = await t.db.sql<{ n: string }[]>`
      SELECT (SELECT count(*) FROM signature_rollups WHERE gate_id = ${gateId} AND capture_count = 0)
        + (SELECT count(*) FROM endpoint_rollups WHERE gate_id = ${gateId} AND request_count = 0) AS n`
    expect(Number(zero!.n)).toBe(0)

    await gates.delete(gateId)
    const [left] = await t.db.sql<{ n: string }[]>`
      SELECT (SELECT count(*) FROM endpoint_rollups WHERE gate_id = ${gateId})
        + (SELECT count(*) FROM signature_rollups WHERE gate_id = ${gateId})
        + (SELECT count(*) FROM insight_signatures WHERE gate_id = ${gateId})
        + (SELECT count(*) FROM insight_templates WHERE gate_id = ${gateId}) AS n`
    expect(Number(left!.n)).toBe(0)
    expect(await insightDrift(t.db.sql, gateId)).toEqual([])
  })
})
