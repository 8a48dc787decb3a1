import { describe, expect, test } from 'bun:test'
import type { GateStore } from '../../../src/store/gate-store.ts'
import { openRequestExport, type ExportPageBounds, type RequestExportQuery } from '../../../src/store/request-export.ts'
import type { RequestStore } from '../../../src/store/request-store.ts'
import type { RequestDetail } from '../../../src/store/rows.ts'
import { BACKENDS, type TestDatabase } from '../../support/database.ts'
import { at, capture, insertAll, newGate, SECOND, useStores } from './fixtures.ts'

describe.each(BACKENDS)('request export on %s', (kind) => {
  let t: TestDatabase
  let gates: GateStore
  let requests: RequestStore

  useStores(kind, (stores) => ({ t, gates, requests } = stores))

  /** Every page of the export, and how many pages it took. */
  async function exportAll(gateId: string, query: Partial<RequestExportQuery> = {}, bounds: ExportPageBounds = {}) {
    const next = await openRequestExport(t.db.sql, gateId, { order: 'asc', ...query }, bounds)
    const items: RequestDetail[] = []
    let pages = 0
    for (let page = await next(); page !== undefined; page = await next()) {
      pages++
      items.push(...page)
      expect(pages).toBeLessThan(1000)
    }
    return { items, pages }
  }

  test('pages by keyset through captures that share a created_at to the microsecond, each exactly once', async () => {
    const gateId = await newGate(gates)
    // Five captures in one millisecond (a JS Date cannot tell them apart), three at the very same instant.
    const stamps = ['.100001', '.100002', '.100002', '.100002', '.100003'].map((f) => `2026-11-26T10:00:00${f}Z`)
    const stored = []
    for (const stamp of stamps) {
      const c = capture({})
      stored.push({ ...c, created_at: stamp })
      await requests.insert(gateId, { ...c, created_at: stamp })
    }
    const byStamp = (a: { created_at: string | Date; id: string }, b: { created_at: string | Date; id: string }) =>
      String(a.created_at).localeCompare(String(b.created_at)) || a.id.localeCompare(b.id)
    const expected = [...stored].sort(byStamp).map((c) => c.id)
    const asc = await exportAll(gateId, {}, { rows: 1 })
    expect(asc.items.map((d) => d.id)).toEqual(expected)
    expect(asc.pages).toBe(5)
    const desc = await exportAll(gateId, { order: 'desc' }, { rows: 2 })
    expect(desc.items.map((d) => d.id)).toEqual([...expected].reverse())
  })

  test('gives each capture as getRequest does: payload, bodies, diff, template and signature', async () => {
    const gateId = await newGate(gates)
    const [c] = await insertAll(requests, gateId, [
      { path: '/v2/items/42', raw_query: 'a=1', has_diff: true, body: Uint8Array.from([0, 255, 7]), headers: { 'X-A': ['1', '2'] } },
    ])
    const { items } = await exportAll(gateId)
    expect(items).toEqual([(await requests.get(gateId, c!.id))!])
    expect(items[0]!.template).toBe('/v2/items/{id}')
    expect(items[0]!.signature_id).not.toBeNull()
  })

  test('a page holds at most its byte bound of bodies, and always one capture', async () => {
    const gateId = await newGate(gates)
    const base = new Date('2026-11-26T11:00:00Z')
    const body = new Uint8Array(1000)
    await insertAll(requests, gateId, Array.from({ length: 6 }, (_, i) => ({ created_at: at(base, i * SECOND), body })))
    // Each capture: a 1000-byte request body and 7-byte live and shadow bodies.
    expect((await exportAll(gateId, {}, { bytes: 2100 })).pages).toBe(3)
    expect((await exportAll(gateId, {}, { bytes: 10 })).pages).toBe(6)
    expect((await exportAll(gateId, {}, { bytes: 10 })).items).toHaveLength(6)
  })

  test("listRequests' filters select the same captures, and limit caps them", async () => {
    const gateId = await newGate(gates)
    const base = new Date('2026-11-26T12:00:00Z')
    await insertAll(
      requests,
      gateId,
      Array.from({ length: 24 }, (_, i) => ({
        method: i % 3 === 0 ? 'POST' : 'GET',
        path: i % 2 === 0 ? `/api/orders/${i}` : `/api/users/${i}`,
        has_diff: i % 4 === 0,
        created_at: at(base, i * SECOND),
      })),
    )
    const list = async (query: Record<string, unknown>) =>
      (await requests.list(gateId, { limit: 100, offset: 0, sort: 'created_at', order: 'asc', ...query })).items.map((s) => s.id)
    const cases: Array<Partial<RequestExportQuery>> = [
      {},
      { method: ['POST'] },
      { path: '/api/orders' },
      { path: 'nothing-matches' },
      { has_diff: true },
      { from: at(base, 5 * SECOND), to: at(base, 9 * SECOND) },
      { method: ['GET'], path: '/api/users', has_diff: false },
      { template: '/api/orders/{id}' },
    ]
    for (const query of cases) {
      const { items } = await exportAll(gateId, query, { rows: 5 })
      expect(items.map((d) => d.id)).toEqual(await list(query))
    }
    const signature = (await exportAll(gateId, { has_diff: true })).items[0]!.signature_id!
    expect((await exportAll(gateId, { signature })).items.map((d) => d.id)).toEqual(await list({ signature }))
    const limited = await exportAll(gateId, { limit: 7 }, { rows: 5 })
    expect(limited.items.map((d) => d.id)).toEqual((await list({})).slice(0, 7))
  })

  test('an unknown or malformed gate exports nothing', async () => {
    expect((await exportAll(crypto.randomUUID())).items).toEqual([])
    expect((await exportAll('not-a-uuid')).items).toEqual([])
  })
})
