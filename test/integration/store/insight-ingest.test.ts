import { describe, expect, test } from 'bun:test'
import { OTHER_TEMPLATE, overflowSignature } from '../../../src/insights/index.ts'
import { LATENCY_BUCKETS, LATENCY_THRESHOLDS_MS, latencyBucket } from '../../../src/insights/latency-histogram.ts'
import type { GateStore } from '../../../src/store/gate-store.ts'
import { backfillInsights } from '../../../src/store/insight-backfill.ts'
import type { CapReached } from '../../../src/store/insight-catalog.ts'
import { createInsightsStore } from '../../../src/store/insights-store.ts'
import { rebuildRollups } from '../../../src/store/rebuild-rollups.ts'
import { createRequestStore, type RequestListQuery, type RequestStore } from '../../../src/store/request-store.ts'
import { BACKENDS, type TestDatabase } from '../../support/database.ts'
import { at, capture, HOUR, insertAll, MINUTE, newGate, rollupDrift, SECOND, useStores } from './fixtures.ts'

describe.each(BACKENDS)('insight keys at ingest on %s', (kind) => {
  let t: TestDatabase
  let gates: GateStore
  let requests: RequestStore

  useStores(kind, (stores) => ({ t, gates, requests } = stores))

  const list = (gateId: string, query: Partial<RequestListQuery>) =>
    requests.list(gateId, { limit: 100, offset: 0, sort: 'created_at', order: 'desc', ...query })

  test('the database buckets latencies as LATENCY_THRESHOLDS_MS says, into as many columns per side', async () => {
    const probes = [0, ...LATENCY_THRESHOLDS_MS.flatMap((ms) => [ms - 1, ms, ms + 1]), 10 ** 9]
    const rows = await t.db.sql<{ ms: string; bucket: number }[]>`
      SELECT ms, latency_bucket(ms) AS bucket FROM unnest(${probes}::bigint[]) AS ms`
    expect(rows.map((r) => r.bucket)).toEqual(probes.map(latencyBucket))
    const [columns] = await t.db.sql<{ live: string; shadow: string }[]>`
      SELECT count(*) FILTER (WHERE column_name LIKE 'live\_%') AS live, count(*) FILTER (WHERE column_name LIKE 'shadow\_%') AS shadow
      FROM information_schema.columns WHERE table_name = 'endpoint_rollups'`
    expect([Number(columns!.live), Number(columns!.shadow)]).toEqual([LATENCY_BUCKETS, LATENCY_BUCKETS])
  })

  test('a template given with the capture (the gate\'s explicit one) is used; otherwise the automatic one', async () => {
    const gateId = await newGate(gates)
    const given = capture({ path: '/v2/products/abc/price' })
    given.template = '/v2/products/{sku}/price'
    await requests.insert(gateId, given)
    const { summary } = await requests.insert(gateId, capture({ path: '/v2/products/15028/price?x=1' }))
    expect(summary.template).toBe('/v2/products/{id}/price')
    expect((await requests.get(gateId, given.id))!.template).toBe('/v2/products/{sku}/price')
  })

  test('past the caps, new templates count as (other) and new signatures as their endpoint\'s overflow signature, reported once', async () => {
    const reports: CapReached[] = []
    const capped = createRequestStore(t.db.sql, { insights: { maxTemplates: 3, maxSignatures: 2, onCapReached: (e) => reports.push(e) } })
    const gateId = await newGate(gates)
    for (const word of ['a', 'b', 'c', 'd', 'e']) await capped.insert(gateId, capture({ path: `/${word}` }))
    const templates = (await list(gateId, {})).items.map((r) => r.template).sort()
    expect(templates).toEqual(['(other)', '(other)', '/a', '/b', '/c'])
    // A known template stays itself after the cap.
    expect((await capped.insert(gateId, capture({ path: '/b' }))).summary.template).toBe('/b')

    const diffOn = (field: string) => capture({ path: '/a', has_diff: true, diff: [{ op: 'replace', path: `/body/${field}`, value: 1 }] })
    const ids = []
    for (const field of ['x', 'y', 'z', 'w', 'x']) ids.push((await capped.insert(gateId, diffOn(field))).summary.signature_id)
    const overflow = overflowSignature({ method: 'GET', template: '/a' }, 'diff')
    expect(ids[0]).not.toBe(overflow.id)
    expect(ids.slice(2, 4)).toEqual([overflow.id, overflow.id])
    expect(ids[4]).toBe(ids[0])
    expect(reports).toEqual([{ gateId, what: 'template' }, { gateId, what: 'signature' }])

    const signatures = await createInsightsStore(t.db.sql).signatures(gateId, {
      limit: 10, offset: 0, sort: 'count', order: 'desc', from: at(new Date(), -HOUR), to: new Date(),
    })
    expect(signatures.items.find((s) => s.id === overflow.id)).toMatchObject({ overflow: true, count: 2, ops: [], template: '/a' })
    const [n] = await t.db.sql<{ templates: string; signatures: string }[]>`
      SELECT (SELECT count(*) FROM insight_templates WHERE gate_id = ${gateId}) AS templates,
        (SELECT count(*) FROM insight_signatures WHERE gate_id = ${gateId} AND NOT overflow) AS signatures`
    expect([Number(n!.templates), Number(n!.signatures)]).toEqual([3, 2])
    expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
    expect(templates).toContain(OTHER_TEMPLATE)
  })

  test('concurrent new templates across two stores never pass the cap', async () => {
    const gateId = await newGate(gates)
    const a = createRequestStore(t.db.sql, { insights: { maxTemplates: 5 } })
    const b = createRequestStore(t.db.sql, { insights: { maxTemplates: 5 } })
    await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).insert(gateId, capture({ path: `/p${String.fromCharCode(97 + i)}` }))))
    const [n] = await t.db.sql<{ n: string }[]>`SELECT count(*) AS n FROM insight_templates WHERE gate_id = ${gateId}`
    expect(Number(n!.n)).toBe(5)
    const kept = (await list(gateId, {})).items.filter((r) => r.template !== OTHER_TEMPLATE)
    expect(kept).toHaveLength(5)
  })

  describe('listRequests signature and template filters', () => {
    const NOW = new Date('2026-04-01T12:00:30.000Z')
    let gateId: string
    let signature: string

    test('pages and totals match the rows for ranges on and off minute bounds', async () => {
      gateId = await newGate(gates)
      const specs = Array.from({ length: 90 }, (_, i) => ({
        path: i % 3 === 0 ? `/orders/${i}` : `/users/${i}`,
        method: i % 4 === 0 ? 'POST' : 'GET',
        created_at: at(NOW, -i * 47 * SECOND),
        has_diff: i % 5 < 2,
        diff: i % 5 === 0 ? [{ op: 'replace' as const, path: `/body/items/${i}/x`, value: 1 }] : [{ op: 'add' as const, path: '/body/y', value: 1 }],
      }))
      const stored = await insertAll(requests, gateId, specs)
      const summaries = (await list(gateId, {})).items
      signature = summaries.find((r) => r.path === '/users/10')!.signature_id!
      const templateOf = (path: string) => (path.startsWith('/orders/') ? '/orders/{id}' : '/users/{id}')
      const signatureOf = new Map(summaries.map((r) => [r.id, r.signature_id]))
      const ranges: Array<[Date | undefined, Date | undefined]> = [
        [undefined, undefined],
        [at(NOW, -30 * MINUTE), undefined],
        [undefined, at(NOW, -20 * MINUTE)],
        [at(NOW, -40 * MINUTE - 13 * SECOND), at(NOW, -7 * MINUTE + 5 * SECOND)],
        [at(NOW, -50 * MINUTE - 30 * SECOND), at(NOW, -50 * MINUTE - 30 * SECOND)],
        [at(NOW, -61 * MINUTE), at(NOW, -59 * MINUTE)],
      ]
      const filters: Array<Partial<RequestListQuery>> = [
        { template: '/users/{id}' },
        { template: '/orders/{id}', method: ['POST'] },
        { template: '/orders/{id}', has_diff: true },
        { template: '/users/{id}', has_diff: false },
        { template: '/nothing' },
        { signature },
        { signature, method: ['POST'] },
        { signature, has_diff: false },
        { signature, template: '/orders/{id}' },
        { signature, path: '/users/1' },
        { template: '/users/{id}', path: '0' },
      ]
      for (const [from, to] of ranges) {
        for (const filter of filters) {
          const expected = stored.filter((c) => {
            const created = (c.created_at as Date).getTime()
            return (
              (from === undefined || created >= from.getTime()) &&
              (to === undefined || created <= to.getTime()) &&
              (filter.template === undefined || templateOf(c.path) === filter.template) &&
              (filter.signature === undefined || signatureOf.get(c.id) === filter.signature) &&
              (filter.method === undefined || filter.method.includes(c.method)) &&
              (filter.has_diff === undefined || c.has_diff === filter.has_diff) &&
              (filter.path === undefined || c.path.includes(filter.path))
            )
          })
          const page = await list(gateId, { ...filter, from, to })
          expect({ filter, from, to, total: page.total }).toEqual({ filter, from, to, total: expected.length })
          expect(page.items.map((r) => r.id).sort()).toEqual(expected.map((c) => c.id).sort())
        }
      }
    })
  })

  test('the backfill gives stored captures their template and signature and counts them, resumably', async () => {
    const gateId = await newGate(gates)
    await t.db.sql`UPDATE gates SET endpoints = ${t.db.sql.json(['/users/{name}/profile'])} WHERE id = ${gateId}`
    const failed = capture({ path: '/users/7', has_diff: true, diff: [] })
    failed.shadow_response.status_code = 0
    failed.shadow_response.body = new TextEncoder().encode('shadow: connection reset by peer')
    const stored = [
      ...(await insertAll(requests, gateId, Array.from({ length: 23 }, (_, i) => ({
        path: i % 2 ? `/users/${i}` : `/users/ann/profile`,
        created_at: at(new Date(), -i * MINUTE),
        has_diff: i % 3 === 0,
        diff: i % 3 === 0 ? [{ op: 'replace' as const, path: `/body/list/${i}`, value: i }] : [],
      })))),
      failed,
    ]
    await requests.insert(gateId, failed)
    const expected = await t.db.sql<{ id: string; template: string; signature_id: string | null }[]>`
      SELECT id, template, signature_id FROM requests WHERE gate_id = ${gateId} ORDER BY id`
    expect(expected.find((r) => r.id === failed.id)!.signature_id).not.toBeNull()

    // As before migration 0004 (or by an older API): no template, nothing in the insight rollups.
    await t.db.sql`UPDATE requests SET template = NULL, signature_id = NULL WHERE gate_id = ${gateId}`
    await rebuildRollups(t.db.sql, gateId)
    // A run that stops after one batch of 10 leaves the rest for the next; a gate with an explicit template applies it.
    const first = await backfillInsights(t.db.sql, { batchSize: 10 })
    expect(first).toBe(stored.length)
    const after = await t.db.sql<{ id: string; template: string; signature_id: string | null }[]>`
      SELECT id, template, signature_id FROM requests WHERE gate_id = ${gateId} ORDER BY id`
    // The explicit template names the endpoint, and so enters the signature.
    const explicit = (r: { template: string }) => r.template === '/users/ann/profile'
    expect(after.map((r) => [r.id, r.template, r.signature_id === null])).toEqual(
      expected.map((r) => [r.id, explicit(r) ? '/users/{name}/profile' : r.template, r.signature_id === null]),
    )
    expect(after.filter((r) => r.template !== '/users/{name}/profile')).toEqual(expected.filter((r) => !explicit(r)))
    expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
    // What it counted into its connection's shard is folded, as the compaction would.
    const [unfolded] = await t.db.sql<{ n: string }[]>`
      SELECT count(*) AS n FROM endpoint_rollups
      WHERE gate_id = ${gateId} AND shard <> 0 AND grain = 1 AND bucket < now() - interval '6 minutes'`
    expect(Number(unfolded!.n)).toBe(0)
    expect(await backfillInsights(t.db.sql)).toBe(0)

    await t.db.sql`UPDATE requests SET template = NULL, signature_id = NULL
      WHERE id IN (SELECT id FROM requests WHERE gate_id = ${gateId} ORDER BY created_at LIMIT 5)`
    await rebuildRollups(t.db.sql, gateId)
    expect(await backfillInsights(t.db.sql, { batchSize: 2 })).toBe(5)
    expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
    const [errors] = await t.db.sql<{ n: string }[]>`
      SELECT sum(error_count) AS n FROM endpoint_rollups WHERE gate_id = ${gateId} AND grain = 1`
    expect(Number(errors!.n)).toBe(1)
  })
})
