import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

type Summary = {
  id: string
  method: string
  path: string
  raw_query?: string
  created_at: string
  has_diff: boolean
  live_response: { status_code: number; latency_ms: number }
  shadow_response: { status_code: number; latency_ms: number }
  template: string | null
  signature_id: string | null
}
type Detail = Summary & {
  headers: Record<string, string[]>
  body: string
  live_response: { body: string; headers: Record<string, string[]>; id: string; created_at: string }
  shadow_response: { body: string; headers: Record<string, string[]>; id: string; created_at: string }
  diff: { content: Array<{ op: string; path: string; value?: unknown }> }
}

const fromB64 = (s: string) => Buffer.from(s, 'base64').toString('utf8')

describe.each(BACKENDS)('captured requests on %s', (backend) => {
  let t: TestApi
  let gateId: string
  const post = (body: unknown, headers?: Record<string, string>, gate = gateId) =>
    t.call('POST', `/gates/${gate}/requests`, body, headers)
  const detail = async (id: string) =>
    ((await (await t.call('GET', `/gates/${gateId}/requests/${id}`)).json()) as { data: Detail }).data

  beforeAll(async () => {
    t = await startTestApi(backend)
    const res = await t.call('POST', '/gates', { name: 'orders', live_url: 'http://live:1', shadow_url: 'http://shadow:1' })
    gateId = ((await res.json()) as { data: { id: string } }).data.id
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  test('createRequest stores a capture and answers 201 with its summary', async () => {
    const res = await post(captureBody({ method: 'GET', path: '/api/orders', raw_query: 'page=2' }))
    expect(res.status).toBe(201)
    const { data } = (await res.json()) as { data: Summary }
    expect(data).toEqual({
      id: expect.any(String),
      method: 'GET',
      path: '/api/orders',
      raw_query: 'page=2',
      created_at: expect.any(String),
      live_response: { status_code: 200, latency_ms: 12 },
      shadow_response: { status_code: 200, latency_ms: 15 },
      has_diff: false,
      template: '/api/orders',
      signature_id: null,
    })
  })

  test('raw_query is omitted when empty', async () => {
    const { data } = (await (await post(captureBody())).json()) as { data: Summary }
    expect('raw_query' in data).toBe(false)
    expect('raw_query' in (await detail(data.id))).toBe(false)
  })

  test('the API computes the diff when none is given, as a JSON Patch over {status, headers, body}', async () => {
    const res = await post(captureBody({ live: { id: 1, price: 10, tags: ['a'] }, shadow: { id: 1, price: 11, tags: ['a'], extra: true } }))
    const { data } = (await res.json()) as { data: Summary }
    expect(data.has_diff).toBe(true)
    const d = await detail(data.id)
    expect(d.diff.content).toContainEqual({ op: 'replace', path: '/body/price', value: 11 })
    expect(d.diff.content).toContainEqual({ op: 'add', path: '/body/extra', value: true })
  })

  test('a submitted diff is stored as given', async () => {
    const ops = [{ op: 'replace', path: '/body/x', value: 2 }]
    const { data } = (await (await post(captureBody({ diff: ops }))).json()) as { data: Summary }
    expect(data.has_diff).toBe(true)
    expect((await detail(data.id)).diff.content).toEqual(ops)
  })

  test.each([
    ['a NUL in the path', (b: Record<string, unknown>) => (b.path = '/a\u0000b'), 'path'],
    ['a NUL in the query', (b: Record<string, unknown>) => (b.raw_query = 'a=\u0000'), 'raw_query'],
    ['a header name that is not a token', (b: Record<string, unknown>) => (b.headers = { 'Cookie ': ['s=1'] }), 'headers'],
    ['a CR LF in a header value', (b: Record<string, unknown>) => (b.headers = { 'X-A': ['a\r\nX-B: b'] }), 'headers'],
    ['a bad response header name', (b: Record<string, { headers: unknown }>) => (b.live_response!.headers = { 'Set Cookie': ['x'] }), 'live_response.headers'],
  ])('%s is a 400 naming the field, nothing stored', async (_, spoil, field) => {
    const body = captureBody() as Record<string, never>
    spoil(body)
    const res = await post(body)
    expect(res.status).toBe(400)
    expect(((await res.json()) as { detail: string }).detail).toContain(field)
  })

  test('a NUL in a response body string is stored, its diff with U+FFFD (jsonb has no U+0000)', async () => {
    const res = await post(captureBody({ live: { a: 'x\u0000y' }, shadow: { a: 'x\u0000z' } }))
    expect(res.status).toBe(201)
    const { data } = (await res.json()) as { data: Summary }
    expect((await detail(data.id)).diff.content).toEqual([{ op: 'replace', path: '/body/a', value: 'x\ufffdz' }])
  })

  test('a failed shadow is an error whatever a submitted diff says', async () => {
    const body = captureBody({ diff: [] }) as { shadow_response: { status_code: number; body: string } }
    body.shadow_response.status_code = 0
    body.shadow_response.body = Buffer.from('shadow: connection refused').toString('base64')
    const { data } = (await (await post(body)).json()) as { data: Summary }
    expect(data.has_diff).toBe(true)
    expect((await detail(data.id)).diff.content).toEqual([])
  })

  test('a submitted diff is redacted too: no secret is stored through it', async () => {
    const gate = ((await (await t.call('POST', '/gates', { name: 'diff-secrets', live_url: 'http://l:5', shadow_url: 'http://s:5' })).json()) as { data: { id: string } }).data.id
    await t.call('PATCH', `/gates/${gate}`, { redacted_fields: ['body.**.password'] })
    const ops = [
      { op: 'replace', path: '/headers/set-cookie/0', value: 'session=LEAKED-1' },
      { op: 'replace', path: '/body/password', value: 'LEAKED-2' },
      { op: 'add', path: '/body/user', value: { name: 'ann', password: 'LEAKED-3' } },
    ]
    const { data } = (await (await post(captureBody({ diff: ops }), {}, gate)).json()) as { data: Summary }
    expect(data.has_diff).toBe(true)
    const stored = ((await (await t.call('GET', `/gates/${gate}/requests/${data.id}`)).json()) as { data: Detail }).data
    expect(stored.diff.content).toEqual([{ op: 'add', path: '/body/user', value: { name: 'ann', password: '[REDACTED]' } }])
    expect(JSON.stringify(stored)).not.toContain('LEAKED')
    const onlySecrets = [{ op: 'replace', path: '/body/password', value: 'LEAKED-4' }]
    const quiet = (await (await post(captureBody({ diff: onlySecrets }), {}, gate)).json()) as { data: Summary }
    expect(quiet.data.has_diff).toBe(false)
  })

  test('the gate diff_config quiets ignored fields', async () => {
    const gate = ((await (await t.call('POST', '/gates', { name: 'quiet', live_url: 'http://l:2', shadow_url: 'http://s:2' })).json()) as { data: { id: string } }).data.id
    await t.call('PATCH', `/gates/${gate}`, {
      diff_config: { ignored_fields: ['body.**.updated_at'], included_fields: [], float_tolerance: 0.5, sort_arrays: true },
    })
    const res = await post(
      captureBody({ live: { a: { updated_at: 1 }, n: 1.0, l: [1, 2] }, shadow: { a: { updated_at: 2 }, n: 1.2, l: [2, 1] } }),
      {},
      gate,
    )
    expect(((await res.json()) as { data: Summary }).data.has_diff).toBe(false)
  })

  test('bodies round-trip as base64; default and gate fields are redacted before storage', async () => {
    const gate = ((await (await t.call('POST', '/gates', { name: 'secrets', live_url: 'http://l:3', shadow_url: 'http://s:3' })).json()) as { data: { id: string } }).data.id
    await t.call('PATCH', `/gates/${gate}`, { redacted_fields: ['body.password', 'headers.X-Session'] })
    const body = captureBody({
      requestHeaders: { Authorization: ['Bearer topsecret'], Cookie: ['sid=1'], 'X-Session': ['s1'], Accept: ['*/*'] },
      requestBody: { user: 'ann', password: 'hunter2' },
      live: { token: 'x', password: 'live-pass' },
      shadow: { token: 'x', password: 'shadow-pass' },
      liveHeaders: { 'Set-Cookie': ['a=b'], 'Content-Type': ['application/json'] },
    })
    const { data } = (await (await post(body, {}, gate)).json()) as { data: Summary }
    expect(data.has_diff).toBe(false)
    const d = ((await (await t.call('GET', `/gates/${gate}/requests/${data.id}`)).json()) as { data: Detail }).data
    expect(d.headers.Authorization).toEqual(['[REDACTED]'])
    expect(d.headers.Cookie).toEqual(['[REDACTED]'])
    expect(d.headers['X-Session']).toEqual(['[REDACTED]'])
    expect(d.headers.Accept).toEqual(['*/*'])
    expect(JSON.parse(fromB64(d.body))).toEqual({ user: 'ann', password: '[REDACTED]' })
    expect(JSON.parse(fromB64(d.live_response.body)).password).toBe('[REDACTED]')
    expect(d.live_response.headers['Set-Cookie']).toEqual(['[REDACTED]'])
    const everything = JSON.stringify(d)
    for (const secret of ['topsecret', 'hunter2', 'live-pass', 'shadow-pass', 'sid=1']) expect(everything).not.toContain(secret)
  })

  test('binary bodies survive byte for byte', async () => {
    const bytes = Buffer.from([0, 1, 2, 254, 255, 10, 13])
    const body = captureBody()
    ;(body.live_response as { body: string }).body = bytes.toString('base64')
    ;(body.shadow_response as { body: string }).body = bytes.toString('base64')
    const { data } = (await (await post(body)).json()) as { data: Summary }
    expect(Buffer.from((await detail(data.id)).live_response.body, 'base64')).toEqual(bytes)
  })

  test('a failed shadow (status 0) is stored as a diff', async () => {
    const { data } = (await (await post(captureBody({ shadowStatus: 0, shadow: 'connect ECONNREFUSED' }))).json()) as { data: Summary }
    expect(data.has_diff).toBe(true)
    expect(data.shadow_response.status_code).toBe(0)
  })

  test('the id comes from the body, else X-Request-ID, else is generated', async () => {
    const bodyId = crypto.randomUUID()
    expect(((await (await post(captureBody({ id: bodyId }))).json()) as { data: Summary }).data.id).toBe(bodyId)
    const headerId = crypto.randomUUID()
    const res = await post(captureBody(), { 'X-Request-ID': headerId })
    expect(((await res.json()) as { data: Summary }).data.id).toBe(headerId)
    expect(res.headers.get('X-Request-ID')).toBe(headerId)
    const generated = await post(captureBody(), { 'X-Request-ID': 'not-a-uuid' })
    const id = ((await generated.json()) as { data: Summary }).data.id
    expect(id).not.toBe('not-a-uuid')
    expect(generated.headers.get('X-Request-ID')).toBe(id)
  })

  test('createRequest is idempotent on id; the same id under another gate is 409', async () => {
    const id = crypto.randomUUID()
    const capture = captureBody({ id, live: { v: 1 }, shadow: { v: 2 } })
    const first = await post(capture)
    const second = await post(capture)
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    expect(await second.json()).toEqual(await first.json())
    const other = ((await (await t.call('POST', '/gates', { name: 'other', live_url: 'http://l:4', shadow_url: 'http://s:4' })).json()) as { data: { id: string } }).data.id
    expect((await post(captureBody({ id }), {}, other)).status).toBe(409)
  })

  test.each([
    [(b: Record<string, unknown>) => delete b.method, 'method'],
    [(b: Record<string, unknown>) => (b.body = '***'), 'body'],
    [(b: Record<string, unknown>) => (b.created_at = 'yesterday'), 'created_at'],
    [(b: Record<string, unknown>) => (b.created_at = '2026-11-21T24:00:00Z'), 'created_at'],
    [(b: Record<string, unknown>) => (b.created_at = '0001-06-01T00:00:00Z'), 'created_at'],
    [(b: Record<string, unknown>) => ((b.live_response as Record<string, unknown>).created_at = '2026-02-29T10:00:00Z'), 'created_at'],
    [(b: Record<string, unknown>) => (b.headers = { A: 'not-a-list' }), 'headers'],
    [(b: Record<string, unknown>) => (b.extra = 1), 'extra'],
    [(b: Record<string, unknown>) => delete (b.live_response as Record<string, unknown>).latency_ms, 'latency_ms'],
    [(b: Record<string, unknown>) => (b.diff = { content: [{ op: 'move', path: '/body/a' }] }), 'op'],
    [(b: Record<string, unknown>) => (b.diff = { content: [{ op: 'add', path: 'no-slash', value: 1 }] }), 'path'],
    [(b: Record<string, unknown>) => (b.diff = { content: [{ op: 'add', path: '/body/a~2', value: 1 }] }), 'path'],
    [(b: Record<string, unknown>) => (b.diff = { content: [{ op: 'add', path: '/other/x', value: 1 }] }), 'path'],
    [(b: Record<string, unknown>) => (b.diff = { content: [{ op: 'add', path: '/Headers/Authorization', value: ['x'] }] }), 'path'],
    // Refused at once: this pointer made an earlier pattern backtrack for hours.
    [(b: Record<string, unknown>) => (b.diff = { content: [{ op: 'add', path: `/body${'/'.repeat(80)}~`, value: 1 }] }), 'path'],
    [(b: Record<string, unknown>) => (b.diff = { content: [{ op: 'replace', path: '/body/a' }] }), 'value'],
    [(b: Record<string, unknown>) => (b.diff = { content: [{ op: 'remove', path: '/body/a', value: 1 }] }), 'value'],
    [(b: Record<string, unknown>) => (b.diff = { content: [{ op: 'add', path: '/body/a', value: 1, from: '/b' }] }), 'from'],
    [(b: Record<string, unknown>) => (b.diff = { content: [], extra: 1 }), 'extra'],
  ])('an invalid capture is a 400 (%#: %p)', async (mutate, field) => {
    const body = captureBody()
    mutate(body)
    const res = await post(body)
    expect(res.status).toBe(400)
    expect(((await res.json()) as { detail: string }).detail).toContain(field)
  })

  test('createRequest for an unknown gate is a 404', async () => {
    expect((await post(captureBody(), {}, crypto.randomUUID())).status).toBe(404)
  })

  test('getRequest: 404 for an unknown request or gate, 400 for a bad id', async () => {
    expect((await t.call('GET', `/gates/${gateId}/requests/${crypto.randomUUID()}`)).status).toBe(404)
    expect((await t.call('GET', `/gates/${crypto.randomUUID()}/requests/${crypto.randomUUID()}`)).status).toBe(404)
    expect((await t.call('GET', `/gates/${gateId}/requests/nope`)).status).toBe(400)
  })

  test('the gate stats count the last 24 hours', async () => {
    const res = await t.call('GET', `/gates/${gateId}`)
    const { stats } = ((await res.json()) as { data: { stats: { request_count_24h: number; diff_count_24h: number; diff_rate: number; last_active: string } } }).data
    expect(stats.request_count_24h).toBeGreaterThan(5)
    expect(stats.diff_rate).toBeCloseTo(stats.diff_count_24h / stats.request_count_24h, 10)
    expect(stats.last_active).not.toBeNull()
  })
})

describe.each(BACKENDS)('listRequests on %s', (backend) => {
  let t: TestApi
  let gateId: string
  const hour = 3_600_000
  const base = Date.now()
  const at = (hoursAgo: number) => new Date(base - hoursAgo * hour).toISOString()

  beforeAll(async () => {
    t = await startTestApi(backend)
    const res = await t.call('POST', '/gates', { name: 'list', live_url: 'http://live:9', shadow_url: 'http://shadow:9' })
    gateId = ((await res.json()) as { data: { id: string } }).data.id
    const rows = [
      { method: 'GET', path: '/api/users/1', created_at: at(5), live: { a: 1 } },
      { method: 'GET', path: '/api/users/2', created_at: at(4), live: { a: 1 }, shadow: { a: 2 } },
      { method: 'POST', path: '/api/orders', created_at: at(3), live: { a: 1 } },
      { method: 'DELETE', path: '/api/orders/7', created_at: at(2), live: { a: 1 }, shadow: { b: 1 } },
      { method: 'GET', path: '/health_check%', created_at: at(1), live: { a: 1 } },
    ]
    for (const row of rows) expect((await t.call('POST', `/gates/${gateId}/requests`, captureBody(row))).status).toBe(201)
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  const paths = async (query: string) => {
    const res = await t.call('GET', `/gates/${gateId}/requests${query}`)
    expect(res.status).toBe(200)
    return ((await res.json()) as { data: Summary[] }).data.map((r) => r.path)
  }

  test.each([
    ['', ['/health_check%', '/api/orders/7', '/api/orders', '/api/users/2', '/api/users/1']],
    ['?order=asc', ['/api/users/1', '/api/users/2', '/api/orders', '/api/orders/7', '/health_check%']],
    ['?method=POST,DELETE', ['/api/orders/7', '/api/orders']],
    ['?method=get', ['/health_check%', '/api/users/2', '/api/users/1']],
    ['?path=orders', ['/api/orders/7', '/api/orders']],
    ['?path=/api/*/7', ['/api/orders/7']],
    ['?path=ORDERS', []],
    ['?path=check%25', ['/health_check%']],
    ['?path=_', ['/health_check%']],
    ['?has_diff=true', ['/api/orders/7', '/api/users/2']],
    ['?has_diff=false', ['/health_check%', '/api/orders', '/api/users/1']],
    [`?from=${encodeURIComponent(at(3.5))}&to=${encodeURIComponent(at(1.5))}`, ['/api/orders/7', '/api/orders']],
    ['?sort=path&order=asc', ['/api/orders', '/api/orders/7', '/api/users/1', '/api/users/2', '/health_check%']],
    ['?sort=method&order=asc&limit=1', ['/api/orders/7']],
    ['?sort=method&order=desc&limit=1', ['/api/orders']],
  ])('filters and sorts: %s', async (query, expected) => {
    expect(await paths(query)).toEqual(expected)
  })

  test('from and to are inclusive', async () => {
    expect(await paths(`?from=${encodeURIComponent(at(2))}&to=${encodeURIComponent(at(2))}`)).toEqual(['/api/orders/7'])
  })

  test('pagination totals follow the filters', async () => {
    const res = await t.call('GET', `/gates/${gateId}/requests?has_diff=false&limit=2&offset=1`)
    const page = (await res.json()) as { data: Summary[]; pagination: unknown }
    expect(page.data).toHaveLength(2)
    expect(page.pagination).toEqual({ limit: 2, offset: 1, total: 3, has_more: false })
  })

  test.each(['?limit=0', '?limit=101', '?offset=-1', '?from=yesterday', '?from=2026-02-30T08:00:00Z', '?to=2026-11-21T24:00:00Z', '?from=0000-01-01T00:00:00Z', '?has_diff=maybe', '?sort=status', '?order=sideways'])(
    '%s is a 400',
    async (query) => {
      const res = await t.call('GET', `/gates/${gateId}/requests${query}`)
      expect(res.status).toBe(400)
      expect(((await res.json()) as { type: string }).type).toBe('/errors/invalid-parameter')
    },
  )

  test('an unknown gate is a 404; a bad gate id is a 400', async () => {
    expect((await t.call('GET', `/gates/${crypto.randomUUID()}/requests`)).status).toBe(404)
    expect((await t.call('GET', '/gates/xyz/requests')).status).toBe(400)
  })

  test('deleting the gate deletes its requests', async () => {
    const res = await t.call('POST', '/gates', { name: 'gone', live_url: 'http://g:1', shadow_url: 'http://g:2' })
    const gone = ((await res.json()) as { data: { id: string } }).data.id
    const { data } = (await (await t.call('POST', `/gates/${gone}/requests`, captureBody())).json()) as { data: Summary }
    expect((await t.call('DELETE', `/gates/${gone}`)).status).toBe(204)
    // The id is free again: a new capture under another gate with it is not a conflict.
    expect((await t.call('POST', `/gates/${gateId}/requests`, captureBody({ id: data.id }))).status).toBe(201)
  })
})
