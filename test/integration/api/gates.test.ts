import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

const gateBody = (n: number | string) => ({
  name: `gate-${n}`,
  live_url: `http://live-${n}.internal:8080`,
  shadow_url: `http://shadow-${n}.internal:8080`,
})

describe.each(BACKENDS)('gates on %s', (backend) => {
  let t: TestApi
  beforeAll(async () => {
    t = await startTestApi(backend)
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  test('createGate answers 201 with a new gate in the documented shape', async () => {
    const res = await t.call('POST', '/gates', gateBody('shape'))
    expect(res.status).toBe(201)
    const { data } = (await res.json()) as { data: Record<string, unknown> }
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'gate-shape',
      live_url: 'http://live-shape.internal:8080',
      shadow_url: 'http://shadow-shape.internal:8080',
      diff_config: { ignored_fields: [], included_fields: [], float_tolerance: 0, sort_arrays: false },
      redacted_fields: [],
      retention: '',
      endpoints: [],
      verdict: {},
      created_at: expect.any(String),
      stats: { request_count_24h: 0, diff_count_24h: 0, diff_rate: 0, last_active: null },
    })
    expect(Number.isNaN(Date.parse(data.created_at as string))).toBe(false)
  })

  test.each([
    [{ name: 'x', live_url: 'http://a' }, 'shadow_url'],
    [{ name: 'x', live_url: 'not a url', shadow_url: 'http://b' }, 'live_url'],
    [{ name: 'x', live_url: 'ftp://a', shadow_url: 'http://b' }, 'live_url'],
    [{ name: 'x', live_url: 'http://a', shadow_url: 'http://b/?v=2' }, 'shadow_url must be absolute: an http:// or https:// URL without a query or fragment'],
    [{ name: '', live_url: 'http://a', shadow_url: 'http://b' }, 'name'],
    [{ name: 7, live_url: 'http://a', shadow_url: 'http://b' }, 'name'],
    [{ name: 'a\u0000b', live_url: 'http://a', shadow_url: 'http://b' }, 'name must be a non-empty name of at most 200 UTF-16 code units, without NUL'],
    // Stored as U+FFFD, the name read back was not the one written.
    [{ name: 'a\ud800b', live_url: 'http://a', shadow_url: 'http://b' }, 'name must be a non-empty name'],
    [{ name: 'x', live_url: 'http://a.example/\u0000', shadow_url: 'http://b' }, 'live_url must be a URL without NUL characters'],
    [{ name: 'x', live_url: 'http://a', shadow_url: 'http://b/\ud800' }, 'shadow_url must be a URL without lone surrogates'],
    [{ name: 'x', live_url: 'http://a', shadow_url: 'http://b', extra: true }, 'unknown field extra'],
  ])('createGate refuses %p with a 400 naming %p', async (body, field) => {
    const res = await t.call('POST', '/gates', body)
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toContain('application/problem+json')
    const problem = (await res.json()) as { type: string; status: number; detail: string; instance: string }
    expect(problem.type).toBe('/errors/invalid-request-body')
    expect(problem.status).toBe(400)
    expect(problem.detail).toContain(field)
    expect(problem.instance).toBe('/gates')
  })

  test('malformed JSON is a 400 problem', async () => {
    const res = await t.call('POST', '/gates', '{"name": ')
    expect(res.status).toBe(400)
    expect(((await res.json()) as { type: string }).type).toBe('/errors/invalid-request-body')
  })

  test('a duplicate name or URL pair is a 409', async () => {
    expect((await t.call('POST', '/gates', gateBody('dup'))).status).toBe(201)
    const sameName = await t.call('POST', '/gates', { ...gateBody('dup'), live_url: 'http://other:1' })
    expect(sameName.status).toBe(409)
    expect(((await sameName.json()) as { type: string }).type).toBe('/errors/conflict')
    const samePair = await t.call('POST', '/gates', { ...gateBody('dup'), name: 'another' })
    expect(samePair.status).toBe(409)
  })

  test('ten parallel creates of one name: exactly one wins', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.call('POST', '/gates', { name: 'race', live_url: `http://race-${i}`, shadow_url: 'http://race-shadow' }),
      ),
    )
    const statuses = results.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(9)
  })

  test('getGate: 200, 404 for an unknown id, 400 for a bad id', async () => {
    const created = ((await (await t.call('POST', '/gates', gateBody('get'))).json()) as { data: { id: string } }).data
    const ok = await t.call('GET', `/gates/${created.id}`)
    expect(ok.status).toBe(200)
    expect(((await ok.json()) as { data: { name: string } }).data.name).toBe('gate-get')
    const missing = await t.call('GET', `/gates/${crypto.randomUUID()}`)
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { type: string }).type).toBe('/errors/not-found')
    const bad = await t.call('GET', '/gates/not-a-uuid')
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { type: string; detail: string }).type).toBe('/errors/invalid-parameter')
  })

  test('updateGate changes only what it is given; retention is tri-state', async () => {
    const { id } = ((await (await t.call('POST', '/gates', gateBody('upd'))).json()) as { data: { id: string } }).data
    const diffConfig = { ignored_fields: ['body.**.ts'], included_fields: [], float_tolerance: 0.01, sort_arrays: true }
    let res = await t.call('PATCH', `/gates/${id}`, { diff_config: diffConfig, redacted_fields: ['body.password'], retention: '1000h' })
    expect(res.status).toBe(200)
    let gate = ((await res.json()) as { data: Record<string, unknown> }).data
    expect(gate).toMatchObject({ name: 'gate-upd', diff_config: diffConfig, redacted_fields: ['body.password'], retention: '1000h' })

    res = await t.call('PATCH', `/gates/${id}`, { name: 'renamed' })
    gate = ((await res.json()) as { data: Record<string, unknown> }).data
    expect(gate).toMatchObject({ name: 'renamed', retention: '1000h', diff_config: diffConfig })

    res = await t.call('PATCH', `/gates/${id}`, { retention: null })
    expect(((await res.json()) as { data: { retention: string } }).data.retention).toBe('')
    await t.call('PATCH', `/gates/${id}`, { retention: '900h' })
    res = await t.call('PATCH', `/gates/${id}`, { retention: '' })
    expect(((await res.json()) as { data: { retention: string } }).data.retention).toBe('')
  })

  test.each([
    [{ retention: '1h' }, 'floor'],
    [{ retention: 'soon' }, 'retention'],
    // Too long to take from a date: it made the cleanup's cutoff an Invalid Date, for every gate.
    [{ retention: '99999999999h' }, 'retention must be a duration of at most 876000h (100 years)'],
    [{ retention: '876000h1ms' }, 'retention must be a duration of at most 876000h (100 years)'],
    [{ diff_config: { ignored_fields: [] } }, 'diff_config'],
    [{ live_url: 'http://x' }, 'live_url'],
    [{ redacted_fields: 'body.x' }, 'redacted_fields'],
    [{ redacted_fields: ['body.ok', 'password'] }, 'it must start with "status", "headers." or "body."'],
    [{ diff_config: { ignored_fields: ['body.a..b'], included_fields: [], float_tolerance: 0, sort_arrays: false } }, 'ignored_fields'],
    [{ diff_config: { ignored_fields: [], included_fields: ['status.code'], float_tolerance: 0, sort_arrays: false } }, 'included_fields'],
    // The database would keep these other than sent (U+FFFD) or not at all: the 400 names the field.
    [{ redacted_fields: ['body.\ud800'] }, 'redacted_fields must be field paths such as body.items.#.price (without lone surrogates'],
    [{ diff_config: { ignored_fields: ['body.\u0000'], included_fields: [], float_tolerance: 0, sort_arrays: false } }, 'ignored_fields must be field paths such as body.items.#.price (without NUL'],
    [{ endpoints: ['/v2/\udc00'] }, 'endpoints must be templates without lone surrogates'],
  ])('updateGate refuses %p with a 400 mentioning %p', async (body, word) => {
    const { id } = ((await (await t.call('POST', '/gates', gateBody(crypto.randomUUID()))).json()) as { data: { id: string } }).data
    const res = await t.call('PATCH', `/gates/${id}`, body)
    expect(res.status).toBe(400)
    expect(((await res.json()) as { detail: string }).detail).toContain(word)
  })

  test('a float tolerance JSON cannot carry back (1e400, Infinity once parsed) is a 400, and the gate stays readable', async () => {
    const { id } = ((await (await t.call('POST', '/gates', gateBody(crypto.randomUUID()))).json()) as { data: { id: string } }).data
    const res = await t.call('PATCH', `/gates/${id}`, '{"diff_config":{"ignored_fields":[],"included_fields":[],"float_tolerance":1e400,"sort_arrays":false}}')
    expect(res.status).toBe(400)
    expect(((await res.json()) as { detail: string }).detail).toBe('diff_config.float_tolerance must be a finite number of at least 0')
    expect((await t.call('GET', `/gates/${id}`)).status).toBe(200)
  })

  test('a retention of 100 years (876000h), the longest, is stored', async () => {
    const { id } = ((await (await t.call('POST', '/gates', gateBody(crypto.randomUUID()))).json()) as { data: { id: string } }).data
    const res = await t.call('PATCH', `/gates/${id}`, { retention: '876000h' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { data: { retention: string } }).data.retention).toBe('876000h')
  })

  test('updateGate: 404 for an unknown gate, 409 for a taken name', async () => {
    expect((await t.call('PATCH', `/gates/${crypto.randomUUID()}`, { name: 'x' })).status).toBe(404)
    await t.call('POST', '/gates', gateBody('taken'))
    const { id } = ((await (await t.call('POST', '/gates', gateBody('taker'))).json()) as { data: { id: string } }).data
    expect((await t.call('PATCH', `/gates/${id}`, { name: 'gate-taken' })).status).toBe(409)
  })

  test('deleteGate: 204 without a body, then 404', async () => {
    const { id } = ((await (await t.call('POST', '/gates', gateBody('del'))).json()) as { data: { id: string } }).data
    const res = await t.call('DELETE', `/gates/${id}`)
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    expect((await t.call('DELETE', `/gates/${id}`)).status).toBe(404)
    expect((await t.call('GET', `/gates/${id}`)).status).toBe(404)
  })
})

describe.each(BACKENDS)('listGates on %s', (backend) => {
  let t: TestApi
  beforeAll(async () => {
    t = await startTestApi(backend)
    for (const n of ['alpha', 'bravo', 'charlie', 'delta', 'echo']) {
      expect((await t.call('POST', '/gates', gateBody(n))).status).toBe(201)
      // PGlite's clock ticks in milliseconds: gates created within one tie on created_at (then id decides).
      await Bun.sleep(3)
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  type GateList = { data: Array<{ name: string; id: string }>; pagination: Record<string, unknown> }
  const list = async (query: string) => {
    const res = await t.call('GET', `/gates${query}`)
    expect(res.status).toBe(200)
    return (await res.json()) as GateList
  }

  test('defaults: newest first, limit 50, offset 0', async () => {
    const page = await list('')
    expect(page.data.map((g) => g.name)).toEqual(['gate-echo', 'gate-delta', 'gate-charlie', 'gate-bravo', 'gate-alpha'])
    expect(page.pagination).toEqual({ limit: 50, offset: 0, total: 5, has_more: false })
  })

  test.each([
    ['?sort=name&order=asc', ['gate-alpha', 'gate-bravo', 'gate-charlie', 'gate-delta', 'gate-echo']],
    ['?sort=live_url&order=desc', ['gate-echo', 'gate-delta', 'gate-charlie', 'gate-bravo', 'gate-alpha']],
    ['?name=lph', ['gate-alpha']],
    ['?name=GATE-B', ['gate-bravo']],
    ['?live_url=live-b', ['gate-bravo']],
    ['?shadow_url=shadow-d', ['gate-delta']],
    ['?name=%25', []],
    ['?name=_', []],
  ])('%s', async (query, names) => {
    expect((await list(query)).data.map((g) => g.name)).toEqual(names)
  })

  test('pagination edges: limit 1, limit 100, offset past the end', async () => {
    expect((await list('?limit=1&sort=name&order=asc')).pagination).toEqual({ limit: 1, offset: 0, total: 5, has_more: true })
    expect((await list('?limit=100')).pagination).toEqual({ limit: 100, offset: 0, total: 5, has_more: false })
    const past = await list('?offset=10')
    expect(past.data).toEqual([])
    expect(past.pagination).toEqual({ limit: 50, offset: 10, total: 5, has_more: false })
  })

  test('pages never overlap or skip', async () => {
    const seen: string[] = []
    for (let offset = 0; offset < 5; offset += 2) {
      seen.push(...(await list(`?limit=2&offset=${offset}&sort=created_at`)).data.map((g) => g.id))
    }
    expect(new Set(seen).size).toBe(5)
  })

  test.each(['?limit=0', '?limit=101', '?limit=x', '?offset=-1', '?sort=size', '?order=up', '?bogus=1'])(
    '%s is a 400 invalid-parameter',
    async (query) => {
      const res = await t.call('GET', `/gates${query}`)
      expect(res.status).toBe(400)
      expect(((await res.json()) as { type: string }).type).toBe('/errors/invalid-parameter')
    },
  )
})
