import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestApi, TEST_API_KEY, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

const BASE = Date.parse('2026-11-26T09:00:00Z')
const stamp = (i: number) => new Date(BASE + i * 1000).toISOString()

describe.each(BACKENDS)('exportRequests on %s', (backend) => {
  let t: TestApi
  let gateId: string
  const ids: string[] = []

  /** The export's lines, parsed, and the answer's head. */
  async function exportLines(query = '') {
    const res = await t.call('GET', `/gates/${gateId}/requests/export${query}`)
    const text = await res.text()
    return { res, text, lines: text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { id: string }) }
  }

  beforeAll(async () => {
    t = await startTestApi(backend)
    const res = await t.call('POST', '/gates', { name: 'export', live_url: 'http://live:1', shadow_url: 'http://shadow:1' })
    gateId = ((await res.json()) as { data: { id: string } }).data.id
    // 130 captures: more than one database page (100).
    for (let i = 0; i < 130; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          t.call(
            'POST',
            `/gates/${gateId}/requests`,
            captureBody({
              method: (i + j) % 5 === 0 ? 'POST' : 'GET',
              path: `/api/items/${i + j}`,
              created_at: stamp(i + j),
              live: { n: i + j },
              shadow: (i + j) % 4 === 0 ? { n: -1 } : { n: i + j },
            }),
          ),
        ),
      )
      for (const r of batch) ids.push(((await r.json()) as { data: { id: string } }).data.id)
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t.stop())

  test('streams every capture as NDJSON, one bare RequestDetail per line, oldest first', async () => {
    const { res, text, lines } = await exportLines()
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/x-ndjson')
    expect(text.endsWith('\n')).toBe(true)
    expect(lines.map((l) => l.id)).toEqual(ids)
    const detail = (await (await t.call('GET', `/gates/${gateId}/requests/${ids[7]}`)).json()) as { data: { id: string } }
    expect(lines[7]).toEqual(detail.data)
  })

  test("takes listRequests' filters, order and a limit", async () => {
    const listed = async (query: string) =>
      ((await (await t.call('GET', `/gates/${gateId}/requests?limit=100&${query}`)).json()) as { data: Array<{ id: string }> }).data.map((s) => s.id)
    for (const query of ['method=post', 'has_diff=true', 'path=/api/items/1', `from=${stamp(20)}&to=${stamp(40)}&method=GET,POST`, 'template=/api/items/{id}&has_diff=false']) {
      const { lines } = await exportLines(`?${query}`)
      expect(lines.map((l) => l.id)).toEqual((await listed(query)).slice(0, 100).reverse())
    }
    expect((await exportLines('?order=desc&limit=3')).lines.map((l) => l.id)).toEqual(ids.slice(-3).reverse())
    expect((await exportLines('?limit=2')).lines.map((l) => l.id)).toEqual(ids.slice(0, 2))
  })

  test('refuses bad parameters, an unknown gate and a missing key with problems before any line', async () => {
    for (const [query, parameter] of [
      ['?limit=0', 'limit'],
      ['?offset=5', 'offset'],
      ['?sort=path', 'sort'],
      ['?has_diff=maybe', 'has_diff'],
      [`?from=${stamp(9)}&to=${stamp(1)}`, 'from'],
      ['?order=sideways', 'order'],
    ] as const) {
      const res = await t.call('GET', `/gates/${gateId}/requests/export${query}`)
      expect(res.status).toBe(400)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
      expect(((await res.json()) as { detail: string }).detail).toContain(parameter)
    }
    const missing = await t.call('GET', `/gates/${crypto.randomUUID()}/requests/export`)
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { type: string }).type).toBe('/errors/not-found')
    const anonymous = await fetch(`${t.url}/gates/${gateId}/requests/export`)
    expect(anonymous.status).toBe(401)
    const wrongKey = await fetch(`${t.url}/gates/${gateId}/requests/export`, { headers: { authorization: `Bearer ${TEST_API_KEY}x` } })
    expect(wrongKey.status).toBe(401)
  })

  test('is in the OpenAPI description with its NDJSON answer and every filter', async () => {
    const doc = (await (await t.call('GET', '/swagger/json')).json()) as {
      paths: Record<string, Record<string, { operationId: string; parameters: Array<{ name: string }>; responses: Record<string, { content: Record<string, { schema: { properties: Record<string, unknown> } }> }> }>>
    }
    const operation = doc.paths['/gates/{gate_id}/requests/export']!.get!
    expect(operation.operationId).toBe('exportRequests')
    expect(operation.parameters.map((p) => p.name).sort()).toEqual(
      ['from', 'gate_id', 'has_diff', 'limit', 'method', 'order', 'path', 'signature', 'template', 'to'].sort(),
    )
    expect(Object.keys(operation.responses['200']!.content)).toEqual(['application/x-ndjson'])
    expect(Object.keys(operation.responses['200']!.content['application/x-ndjson']!.schema.properties)).toContain('live_response')
    expect(Object.keys(operation.responses['404']!.content)).toEqual(['application/problem+json'])
  })
})

describe('exportRequests under the rate limit', () => {
  let t: TestApi
  beforeAll(async () => {
    t = await startTestApi('pglite', { SVC_APP_RATE_LIMIT: '2' })
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t.stop())

  test('is rate limited like every authenticated operation', async () => {
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await t.call('GET', `/gates/${crypto.randomUUID()}/requests/export`)).status)
    expect(statuses).toContain(429)
  })
})
