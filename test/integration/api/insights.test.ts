import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { runCleanup } from '../../../src/store/cleanup.ts'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { insightDrift } from '../../support/insight-drift.ts'

interface Page<T> {
  data: T[]
  pagination: { limit: number; offset: number; total: number; has_more: boolean }
}
interface Endpoint {
  method: string
  template: string
  requests: number
  diffs: number
  errors: number
  diff_rate: number
  live_latency_ms: { p50: number | null; p95: number | null }
  shadow_latency_ms: { p50: number | null; p95: number | null }
}
interface Signature {
  id: string
  kind: 'diff' | 'error'
  method: string
  template: string
  ops: Array<{ op: string; path: string }>
  count: number
  share: number
  first_seen: string
  last_seen: string
  example_request_id: string
  shadow_error: string | null
}
interface Field {
  method: string
  template: string
  op: string
  path: string
  count: number
  rate: number
}

const HOUR = 3_600_000
const MINUTE = 60_000

describe.each(BACKENDS)('insights over HTTP on %s', (backend) => {
  let t: TestApi
  let gateId: string
  const now = Date.now()
  const iso = (msAgo: number) => new Date(now - msAgo).toISOString()
  const get = async <T>(path: string) => {
    const res = await t.call('GET', path)
    expect({ path, status: res.status }).toEqual({ path, status: 200 })
    return (await res.json()) as Page<T>
  }
  const post = (body: unknown) => t.call('POST', `/gates/${gateId}/requests`, body)

  beforeAll(async () => {
    t = await startTestApi(backend)
    const res = await t.call('POST', '/gates', { name: 'shop', live_url: 'http://live:1', shadow_url: 'http://shadow:1' })
    gateId = ((await res.json()) as { data: { id: string } }).data.id
    const patched = await t.call('PATCH', `/gates/${gateId}`, { endpoints: ['/v2/products/{sku}/price', '/static/*'] })
    expect(patched.status).toBe(200)
    const captures = [
      // Three prices that changed, on two products named by an explicit template.
      ...[1, 2, 3].map((i) =>
        captureBody({ path: `/v2/products/ab-${i}/price`, created_at: iso(i * MINUTE), live: { price: { tax: 1 } }, shadow: { price: { tax: 2 } } }),
      ),
      captureBody({ path: '/v2/products/ab-9/price', created_at: iso(30 * MINUTE), live: { price: { tax: 1 } } }),
      // A reordered array with a renamed field: two captures, the same signature whatever the indices.
      captureBody({ path: '/v2/users/4711', created_at: iso(2 * HOUR), live: { items: [{ name: 'a' }, { name: 'b' }] }, shadow: { items: [{ name: 'a' }, { title: 'b' }] } }),
      captureBody({ path: '/v2/users/4712', created_at: iso(3 * HOUR), live: { items: [{ name: 'b' }] }, shadow: { items: [{ title: 'b' }] } }),
      captureBody({ path: '/static/app/main.js', created_at: iso(5 * HOUR) }),
      // A shadow that timed out.
      captureBody({ method: 'POST', path: '/v2/orders', created_at: iso(10 * MINUTE), shadowStatus: 0, shadow: 'shadow: timed out after 2s' }),
      // Outside the default window.
      captureBody({ path: '/v2/users/1', created_at: iso(30 * HOUR), live: { a: 1 }, shadow: { a: 2 } }),
    ]
    for (const body of captures) expect((await post(body)).status).toBe(201)
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t?.stop())

  test('the gate carries its explicit endpoint templates; updateGate sets them, a bad one is a 400 naming it', async () => {
    const gate = ((await (await t.call('GET', `/gates/${gateId}`)).json()) as { data: { endpoints: string[] } }).data
    expect(gate.endpoints).toEqual(['/v2/products/{sku}/price', '/static/*'])
    const bad = await t.call('PATCH', `/gates/${gateId}`, { endpoints: ['/ok/{id}', '/v2/{sku'] })
    expect(bad.status).toBe(400)
    expect(bad.headers.get('content-type')).toContain('application/problem+json')
    const problem = (await bad.json()) as { type: string; detail: string }
    expect(problem.type).toBe('/errors/invalid-request-body')
    expect(problem.detail).toContain('endpoints')
    expect(problem.detail).toContain('"/v2/{sku"')
    // What is wrong comes first, not the limit it did not break.
    expect(problem.detail).toStartWith('endpoints must be valid: invalid endpoint template "/v2/{sku" (at index 1): "{" is not closed')
    const tooMany = await t.call('PATCH', `/gates/${gateId}`, { endpoints: Array.from({ length: 501 }, (_, i) => `/p${i}`) })
    expect(tooMany.status).toBe(400)
    expect(((await tooMany.json()) as { detail: string }).detail).toContain('at most 500')
    const unchanged = ((await (await t.call('GET', `/gates/${gateId}`)).json()) as { data: { endpoints: string[] } }).data
    expect(unchanged.endpoints).toEqual(['/v2/products/{sku}/price', '/static/*'])
  })

  test('listEndpoints: the last 24 h by default, by diff rate, with approximate latency percentiles', async () => {
    const page = await get<Endpoint>(`/gates/${gateId}/endpoints`)
    expect(page.pagination).toEqual({ limit: 50, offset: 0, total: 4, has_more: false })
    expect(page.data.map((e) => [e.method, e.template, e.requests, e.diffs, e.errors, e.diff_rate])).toEqual([
      ['GET', '/v2/users/{id}', 2, 2, 0, 1],
      ['GET', '/v2/products/{sku}/price', 4, 3, 0, 0.75],
      ['POST', '/v2/orders', 1, 0, 1, 0],
      ['GET', '/static/*', 1, 0, 0, 0],
    ])
    // captureBody's latencies are 12 and 15 ms: their buckets read 11 and 14.
    expect(page.data[0]!.live_latency_ms).toEqual({ p50: 11, p95: 11 })
    expect(page.data[0]!.shadow_latency_ms).toEqual({ p50: 14, p95: 14 })
    const byRequests = await get<Endpoint>(`/gates/${gateId}/endpoints?sort=requests&order=asc&limit=2&offset=1`)
    // Ties (one request each) go by template, in the same order: /static/* before /v2/orders.
    expect(byRequests.data.map((e) => e.template)).toEqual(['/v2/orders', '/v2/users/{id}'])
    expect(byRequests.pagination).toEqual({ limit: 2, offset: 1, total: 4, has_more: true })
    const wide = await get<Endpoint>(`/gates/${gateId}/endpoints?from=${iso(48 * HOUR)}&sort=template`)
    expect(wide.data.find((e) => e.template === '/v2/users/{id}')!.requests).toBe(3)
  })

  test('listSignatures: one per kind of difference, with share, first/last seen and the latest capture as example', async () => {
    const page = await get<Signature>(`/gates/${gateId}/signatures`)
    expect(page.pagination.total).toBe(3)
    const [price, rename, timeout] = page.data
    expect(price).toMatchObject({
      kind: 'diff',
      method: 'GET',
      template: '/v2/products/{sku}/price',
      ops: [{ op: 'replace', path: '/body/price/tax' }],
      count: 3,
      share: 3 / 6,
      first_seen: iso(3 * MINUTE),
      last_seen: iso(MINUTE),
    })
    expect(rename).toMatchObject({
      template: '/v2/users/{id}',
      ops: [{ op: 'remove', path: '/body/items/*/name' }, { op: 'add', path: '/body/items/*/title' }],
      count: 2,
    })
    expect(timeout).toMatchObject({ kind: 'error', method: 'POST', ops: [], shadow_error: 'timeout', count: 1 })
    const example = await t.call('GET', `/gates/${gateId}/requests/${price!.example_request_id}`)
    const detail = ((await example.json()) as { data: { path: string; created_at: string; signature_id: string; template: string } }).data
    expect(detail).toMatchObject({ path: '/v2/products/ab-1/price', signature_id: price!.id, template: '/v2/products/{sku}/price' })

    const errors = await get<Signature>(`/gates/${gateId}/signatures?kind=error`)
    expect(errors.data.map((s) => [s.id, s.share])).toEqual([[timeout!.id, 1]])
    const filtered = await get<Signature>(`/gates/${gateId}/signatures?method=get&template=${encodeURIComponent('/v2/users/{id}')}`)
    expect(filtered.data.map((s) => [s.id, s.share])).toEqual([[rename!.id, 1]])
    const byFirstSeen = await get<Signature>(`/gates/${gateId}/signatures?sort=first_seen&order=asc`)
    expect(byFirstSeen.data.map((s) => s.id)).toEqual([rename!.id, timeout!.id, price!.id])
  })

  test('listFields: per endpoint and generalised path, count and rate over the endpoint\'s requests', async () => {
    const page = await get<Field>(`/gates/${gateId}/fields`)
    // No noise checks here: nothing to classify by (test/integration/api/noise.test.ts has them).
    const unchecked = { noise_checks: 0, noise_count: 0, noise_rate: null, classification: 'unknown' }
    expect(page.data).toEqual([
      { method: 'GET', template: '/v2/products/{sku}/price', op: 'replace', path: '/body/price/tax', count: 3, rate: 0.75, ...unchecked },
      { method: 'GET', template: '/v2/users/{id}', op: 'add', path: '/body/items/*/title', count: 2, rate: 1, ...unchecked },
      { method: 'GET', template: '/v2/users/{id}', op: 'remove', path: '/body/items/*/name', count: 2, rate: 1, ...unchecked },
    ])
    const byPath = await get<Field>(`/gates/${gateId}/fields?sort=path&order=asc&method=GET&template=${encodeURIComponent('/v2/users/{id}')}`)
    expect(byPath.data.map((f) => f.path)).toEqual(['/body/items/*/name', '/body/items/*/title'])
  })

  test('listRequests: signature and template filters; summaries carry template and signature_id', async () => {
    const signatures = await get<Signature>(`/gates/${gateId}/signatures`)
    const price = signatures.data[0]!
    const bySignature = await get<{ id: string; signature_id: string; template: string }>(`/gates/${gateId}/requests?signature=${price.id}`)
    expect(bySignature.pagination.total).toBe(3)
    expect(bySignature.data.every((r) => r.signature_id === price.id && r.template === '/v2/products/{sku}/price')).toBe(true)
    const byTemplate = await get<{ has_diff: boolean; signature_id: string | null }>(
      `/gates/${gateId}/requests?template=${encodeURIComponent('/v2/products/{sku}/price')}&has_diff=false`,
    )
    expect(byTemplate.pagination.total).toBe(1)
    expect(byTemplate.data[0]!.signature_id).toBeNull()
    const bad = await t.call('GET', `/gates/${gateId}/requests?signature=XYZ`)
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { detail: string }).detail).toContain('signature')
  })

  test.each([
    ['endpoints?sort=count', 'sort'],
    ['endpoints?order=up', 'order'],
    ['endpoints?limit=0', 'limit'],
    ['endpoints?limit=101', 'limit'],
    ['endpoints?offset=-1', 'offset'],
    ['endpoints?from=yesterday', 'from'],
    ['endpoints?method=GET', 'method'],
    ['endpoints?colour=red', 'colour'],
    ['signatures?kind=warning', 'kind'],
    ['signatures?sort=rate', 'sort'],
    ['signatures?template=a&template=b', 'template'],
    ['fields?sort=diff_rate', 'sort'],
    ['fields?kind=diff', 'kind'],
    [`fields?from=${new Date(now).toISOString()}&to=${new Date(now - HOUR).toISOString()}`, 'from'],
  ])('GET /gates/{id}/%s is a 400 naming %s', async (path, name) => {
    const res = await t.call('GET', `/gates/${gateId}/${path}`)
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toContain('application/problem+json')
    const problem = (await res.json()) as { type: string; detail: string }
    expect(problem.type).toMatch(/^\/errors\/invalid-/)
    expect(problem.detail).toContain(name)
  })

  test.each(['endpoints', 'signatures', 'fields'])('%s: 404 for an unknown gate, 401 without the key', async (read) => {
    const missing = await t.call('GET', `/gates/${crypto.randomUUID()}/${read}`)
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { type: string }).type).toBe('/errors/not-found')
    expect((await fetch(`${t.url}/gates/${gateId}/${read}`)).status).toBe(401)
  })

  test('the OpenAPI description documents the three reads, their parameters and the new fields', async () => {
    const doc = (await (await t.call('GET', '/swagger/json')).json()) as {
      paths: Record<string, Record<string, { operationId: string; parameters?: Array<{ name: string; schema?: { enum?: string[] } }> }>>
      [key: string]: unknown
    }
    const ops = ['/gates/{gate_id}/endpoints', '/gates/{gate_id}/signatures', '/gates/{gate_id}/fields'].map((p) => doc.paths[p]?.get)
    expect(ops.map((op) => op?.operationId)).toEqual(['listEndpoints', 'listSignatures', 'listFields'])
    const names = (op: (typeof ops)[number]) => op!.parameters!.map((p) => p.name).sort()
    expect(names(ops[1])).toEqual(['from', 'gate_id', 'kind', 'limit', 'method', 'offset', 'order', 'sort', 'template', 'to'])
    expect(ops[0]!.parameters!.find((p) => p.name === 'sort')!.schema!.enum!.sort()).toEqual(['diff_rate', 'diffs', 'errors', 'requests', 'template'])
    const text = JSON.stringify(doc)
    expect(text).toContain('example_request_id')
    expect(text).toContain('signature_id')
    expect(doc.paths['/gates/{gate_id}/requests']!.get!.parameters!.map((p) => p.name)).toContain('signature')
  })

  test('after a retention cleanup and a gate deletion the rollups still equal what is stored', async () => {
    const gate = ((await (await t.call('POST', '/gates', { name: 'pruned', live_url: 'http://l:2', shadow_url: 'http://s:2' })).json()) as { data: { id: string } }).data.id
    for (let i = 0; i < 24; i++) {
      const body = captureBody({ path: `/items/${i % 3}`, created_at: iso(i * 37 * MINUTE), live: { n: 1 }, shadow: { n: i % 2 } })
      expect((await t.call('POST', `/gates/${gate}/requests`, body)).status).toBe(201)
    }
    const sql = t.database.db.sql
    await runCleanup(sql, { floorMs: 6 * HOUR, batchSize: 4 })
    expect(await insightDrift(sql, gate)).toEqual([])
    const [{ n: stored }] = (await sql<{ n: string }[]>`SELECT count(*) AS n FROM requests WHERE gate_id = ${gate}`) as unknown as [{ n: string }]
    const endpoints = await get<Endpoint>(`/gates/${gate}/endpoints?from=${iso(48 * HOUR)}`)
    expect(endpoints.data.reduce((sum, e) => sum + e.requests, 0)).toBe(Number(stored))
    const signatures = await get<Signature>(`/gates/${gate}/signatures?from=${iso(48 * HOUR)}`)
    const [{ n: differing }] = (await sql<{ n: string }[]>`
      SELECT count(*) AS n FROM requests WHERE gate_id = ${gate} AND has_diff`) as unknown as [{ n: string }]
    expect(signatures.data.reduce((sum, s) => sum + s.count, 0)).toBe(Number(differing))

    expect((await t.call('DELETE', `/gates/${gate}`)).status).toBe(204)
    const [left] = await sql<{ n: string }[]>`
      SELECT (SELECT count(*) FROM endpoint_rollups WHERE gate_id = ${gate})
        + (SELECT count(*) FROM signature_rollups WHERE gate_id = ${gate}) AS n`
    expect(Number(left!.n)).toBe(0)
    expect((await t.call('GET', `/gates/${gate}/endpoints`)).status).toBe(404)
  })
})

describe('insight reads are rate limited', () => {
  test('past the limit a read is a 429 problem', async () => {
    const t = await startTestApi('pglite', { SVC_APP_RATE_LIMIT: '2' })
    try {
      const gate = crypto.randomUUID()
      const statuses = []
      for (const read of ['endpoints', 'signatures', 'fields']) statuses.push((await t.call('GET', `/gates/${gate}/${read}`)).status)
      expect(statuses).toEqual([404, 404, 429])
    } finally {
      await t.stop()
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
})
