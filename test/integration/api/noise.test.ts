/**
 * Noise checks through the API (docs/insights.md "Noise"): createRequest's
 * live_repeat_response, what getRequest shows, svc_noise_checks_total, the
 * noise counts and classification of listFields, listSuggestions, and the
 * noise rollups kept exact by every insert, cleanup and deletion.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rebuildRollups } from '../../../src/store/rebuild-rollups.ts'
import { runCleanup } from '../../../src/store/cleanup.ts'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { insightDrift } from '../../support/insight-drift.ts'
import { noiseDrift } from '../../support/noise-drift.ts'
import { familyOf, sampleOf } from '../../support/prometheus-text.ts'

interface Page<T> {
  data: T[]
  pagination: { limit: number; offset: number; total: number; has_more: boolean }
}
interface Field {
  method: string
  template: string
  op: string
  path: string
  count: number
  rate: number
  noise_checks: number
  noise_count: number
  noise_rate: number | null
  classification: 'noise' | 'real' | 'unknown'
}
interface Suggestion {
  field: string
  reason: 'noise' | 'volatile'
  evidence: Record<string, number | string | null>
  endpoints: Array<{ method: string; template: string }>
}
type Body = Record<string, unknown> & { live_response: Record<string, unknown> }

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const MAX_BODY = 4096
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64')

/** A ResponsePayload of live's second answer. */
function repeatOf(body: unknown, created_at: string, extra: Record<string, unknown> = {}) {
  return { status_code: 200, headers: { 'Content-Type': ['application/json'] }, body: b64(body), latency_ms: 9, created_at, ...extra }
}

describe.each(BACKENDS)('noise checks over HTTP on %s', (backend) => {
  let t: TestApi
  let gateId: string
  const now = Date.now()
  const iso = (msAgo: number) => new Date(now - msAgo).toISOString()
  const post = (body: unknown, gate = gateId) => t.call('POST', `/gates/${gate}/requests`, body)
  const get = async <T>(path: string) => {
    const res = await t.call('GET', path)
    expect({ path, status: res.status }).toEqual({ path, status: 200 })
    return (await res.json()) as T
  }
  const newGate = async (name: string) =>
    ((await (await t.call('POST', '/gates', { name, live_url: `http://live/${name}`, shadow_url: 'http://shadow:1' })).json()) as { data: { id: string } }).data.id

  beforeAll(async () => {
    t = await startTestApi(backend, { SVC_APP_MAX_BODY_SIZE: String(MAX_BODY) })
    gateId = await newGate('noisy')
    expect((await t.call('PATCH', `/gates/${gateId}`, { redacted_fields: ['body.secret'] })).status).toBe(200)
    const captures: unknown[] = []
    // Items: request_id differs everywhere, live's repeat included (noise); price differs from the shadow only (real).
    for (let i = 0; i < 30; i++) {
      const at = iso((i + 1) * MINUTE)
      const live = { id: i, price: 10, request_id: `live-${i}`, secret: 's1' }
      captures.push({
        ...captureBody({ path: `/v1/items/${1000 + i}`, created_at: at, live, shadow: { ...live, price: i < 20 ? 11 : 10, request_id: `shadow-${i}` } }),
        live_repeat_response: repeatOf({ ...live, request_id: `repeat-${i}`, secret: 's2' }, at),
      })
    }
    // Users: score differs from the shadow only (real), nonce from the repeat too (noise).
    for (let i = 0; i < 12; i++) {
      const at = iso((i + 1) * 2 * MINUTE)
      const live = { score: 1, nonce: `n${i}` }
      captures.push({
        ...captureBody({ path: `/v1/users/${2000 + i}`, created_at: at, live, shadow: { score: 2, nonce: `m${i}` } }),
        live_repeat_response: repeatOf({ score: 1, nonce: `k${i}` }, at),
      })
    }
    // Orders, no noise checks: timestamps that differ in every capture (volatile).
    for (let i = 0; i < 25; i++) {
      const at = iso((i + 1) * 3 * MINUTE)
      const stamp = (s: number) => new Date(now - i * 1000 - s).toISOString()
      captures.push(
        captureBody({
          path: `/v1/orders/${3000 + i}`,
          created_at: at,
          live: { total: 5, updated_at: stamp(1), items: [{ sku: 'a', seen_at: stamp(2) }] },
          shadow: { total: 5, updated_at: stamp(3), items: [{ sku: 'a', seen_at: stamp(4) }] },
        }),
      )
    }
    for (const body of captures) expect((await post(body)).status).toBe(201)
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t?.stop())

  test('a repeat that matches is quiet: noise is an empty patch; the repeat is stored redacted', async () => {
    const at = iso(90 * MINUTE)
    const live = { a: 1, secret: 'live-secret' }
    const body = {
      ...captureBody({ path: '/v1/quiet', created_at: at, live }),
      live_repeat_response: repeatOf({ a: 1, secret: 'other-secret' }, at, { headers: { 'Content-Type': ['application/json'], Authorization: ['Bearer x'] } }),
    }
    const gate = await newGate('quiet')
    expect((await t.call('PATCH', `/gates/${gate}`, { redacted_fields: ['body.secret'] })).status).toBe(200)
    const res = await post(body, gate)
    expect(res.status).toBe(201)
    const summary = ((await res.json()) as { data: { id: string } }).data
    const detail = (await get<{ data: Record<string, unknown> }>(`/gates/${gate}/requests/${summary.id}`)).data
    expect(detail.noise).toEqual({ content: [] })
    const repeat = detail.live_repeat_response as { status_code: number; headers: Record<string, string[]>; body: string; latency_ms: number }
    expect(repeat.status_code).toBe(200)
    expect(repeat.latency_ms).toBe(9)
    expect(repeat.headers.Authorization).toEqual(['[REDACTED]'])
    // A redacted field differs between the two answers and still is no noise.
    expect(JSON.parse(Buffer.from(repeat.body, 'base64').toString())).toEqual({ a: 1, secret: '[REDACTED]' })
  })

  test('a noisy repeat shows what differed; a failed repeat is no check (noise null); none at all is null too', async () => {
    const gate = await newGate('kinds')
    const at = iso(5 * MINUTE)
    const noisy = await post({ ...captureBody({ created_at: at, live: { t: 1, x: 1 } }), live_repeat_response: repeatOf({ t: 2, x: 1 }, at) }, gate)
    const failed = await post(
      { ...captureBody({ created_at: at }), live_repeat_response: repeatOf('live: timed out after 5s', at, { status_code: 0, headers: {} }) },
      gate,
    )
    const none = await post(captureBody({ created_at: at }), gate)
    const detail = async (res: Response) => {
      const id = ((await res.json()) as { data: { id: string } }).data.id
      return (await get<{ data: { noise: unknown; live_repeat_response: { status_code: number } | null } }>(`/gates/${gate}/requests/${id}`)).data
    }
    expect((await detail(noisy)).noise).toEqual({ content: [{ op: 'replace', path: '/body/t', value: 2 }] })
    const failedDetail = await detail(failed)
    expect(failedDetail.noise).toBeNull()
    expect(failedDetail.live_repeat_response!.status_code).toBe(0)
    const noneDetail = await detail(none)
    expect(noneDetail).toMatchObject({ noise: null, live_repeat_response: null })

    const family = familyOf(await (await t.call('GET', '/metrics')).text(), 'svc_noise_checks_total')
    const count = (result: string) => Number(sampleOf(family, { gate, result })?.value)
    expect([count('quiet'), count('noisy'), count('error')]).toEqual([0, 1, 1])
  })

  test('the repeat is part of the capture: the same id again with it is a retry, with another repeat or none a 409', async () => {
    const gate = await newGate('identity')
    const at = iso(MINUTE)
    const id = crypto.randomUUID()
    const first = { ...captureBody({ id, created_at: at }), live_repeat_response: repeatOf({ ok: true }, at) }
    expect((await post(first, gate)).status).toBe(201)
    expect((await post(first, gate)).status).toBe(201)
    const other = await post({ ...first, live_repeat_response: repeatOf({ ok: false }, at) }, gate)
    expect(other.status).toBe(409)
    const without = await post(captureBody({ id, created_at: at }), gate)
    expect(without.status).toBe(409)
    const plainId = crypto.randomUUID()
    expect((await post(captureBody({ id: plainId, created_at: at }), gate)).status).toBe(201)
    expect((await post({ ...captureBody({ id: plainId, created_at: at }), live_repeat_response: repeatOf({ ok: true }, at) }, gate)).status).toBe(409)
    const stored = await get<Page<unknown>>(`/gates/${gate}/requests`)
    expect(stored.pagination.total).toBe(2)
  })

  test("SVC_APP_MAX_BODY_SIZE applies to the repeat's decoded body (413 naming it); its created_at and status are checked", async () => {
    const gate = await newGate('limits')
    const at = iso(MINUTE)
    const big = Buffer.alloc(MAX_BODY + 1, 'a').toString('base64')
    const tooLarge = await post({ ...captureBody({ created_at: at }), live_repeat_response: { ...repeatOf('', at), body: big } }, gate)
    expect(tooLarge.status).toBe(413)
    expect(((await tooLarge.json()) as { detail: string }).detail).toContain('live_repeat_response.body')
    const full = Buffer.alloc(MAX_BODY, 'a').toString('base64')
    const four = captureBody({ created_at: at }) as Body & { shadow_response: Record<string, unknown> }
    four.body = full
    four.live_response.body = full
    four.shadow_response.body = full
    const fits = await post({ ...four, live_repeat_response: { ...repeatOf('', at), body: full } }, gate)
    expect(fits.status).toBe(201)
    const ahead = await post({ ...captureBody({ created_at: at }), live_repeat_response: repeatOf('', new Date(now + 48 * HOUR).toISOString()) }, gate)
    expect(ahead.status).toBe(400)
    expect(((await ahead.json()) as { detail: string }).detail).toContain('live_repeat_response.created_at')
    const malformed = await post({ ...captureBody({ created_at: at }), live_repeat_response: { ...repeatOf('', at), status_code: 42 } }, gate)
    expect(malformed.status).toBe(400)
    expect(((await malformed.json()) as { detail: string }).detail).toContain('live_repeat_response.status_code')
  })

  test('listFields: noise checks, noise count and rate, and the classification of each field', async () => {
    const page = await get<Page<Field>>(`/gates/${gateId}/fields?limit=100`)
    const field = (template: string, path: string) => page.data.find((f) => f.template === template && f.path === path)
    expect(field('/v1/items/{id}', '/body/request_id')).toEqual({
      method: 'GET',
      template: '/v1/items/{id}',
      op: 'replace',
      path: '/body/request_id',
      count: 30,
      rate: 1,
      noise_checks: 30,
      noise_count: 30,
      noise_rate: 1,
      classification: 'noise',
    })
    expect(field('/v1/items/{id}', '/body/price')).toMatchObject({ count: 20, noise_checks: 30, noise_count: 0, noise_rate: 0, classification: 'real' })
    expect(field('/v1/users/{id}', '/body/nonce')).toMatchObject({ count: 12, noise_count: 12, classification: 'noise' })
    expect(field('/v1/users/{id}', '/body/score')).toMatchObject({ count: 12, noise_count: 0, classification: 'real' })
    expect(field('/v1/orders/{id}', '/body/updated_at')).toMatchObject({ count: 25, noise_checks: 0, noise_rate: null, classification: 'unknown' })
  })

  test('listSuggestions: noise first, then volatile fields, as pasteable paths; never a real one', async () => {
    const page = await get<Page<Suggestion>>(`/gates/${gateId}/suggestions`)
    expect(page.pagination).toEqual({ limit: 50, offset: 0, total: 4, has_more: false })
    expect(page.data.map((s) => [s.field, s.reason])).toEqual([
      ['body.request_id', 'noise'],
      ['body.nonce', 'noise'],
      ['body.items.#.seen_at', 'volatile'],
      ['body.updated_at', 'volatile'],
    ])
    expect(page.data[0]).toEqual({
      field: 'body.request_id',
      reason: 'noise',
      evidence: { requests: 30, count: 30, rate: 1, noise_checks: 30, noise_count: 30, noise_rate: 1, shape: null, samples: 0 },
      endpoints: [{ method: 'GET', template: '/v1/items/{id}' }],
    })
    expect(page.data[3]).toEqual({
      field: 'body.updated_at',
      reason: 'volatile',
      evidence: { requests: 25, count: 25, rate: 1, noise_checks: 0, noise_count: 0, noise_rate: null, shape: 'timestamp', samples: 20 },
      endpoints: [{ method: 'GET', template: '/v1/orders/{id}' }],
    })
    const second = await get<Page<Suggestion>>(`/gates/${gateId}/suggestions?limit=2&offset=2`)
    expect(second.data.map((s) => s.field)).toEqual(['body.items.#.seen_at', 'body.updated_at'])
    expect(second.pagination).toEqual({ limit: 2, offset: 2, total: 4, has_more: false })

    // A field the gate already ignores is not suggested again, even while its old diffs are counted.
    const patched = await t.call('PATCH', `/gates/${gateId}`, {
      diff_config: { ignored_fields: ['body.request_id', 'body.items.#.seen_at'], included_fields: [], float_tolerance: 0, sort_arrays: false },
    })
    expect(patched.status).toBe(200)
    try {
      const after = await get<Page<Suggestion>>(`/gates/${gateId}/suggestions`)
      expect(after.data.map((s) => s.field)).toEqual(['body.nonce', 'body.updated_at'])
    } finally {
      await t.call('PATCH', `/gates/${gateId}`, { diff_config: { ignored_fields: [], included_fields: [], float_tolerance: 0, sort_arrays: false } })
    }
    // Outside the window there is nothing to suggest.
    const old = await get<Page<Suggestion>>(`/gates/${gateId}/suggestions?from=${iso(48 * HOUR)}&to=${iso(30 * HOUR)}`)
    expect(old.data).toEqual([])
  })

  test.each([
    ['suggestions?limit=0', 'limit'],
    ['suggestions?from=soon', 'from'],
    ['suggestions?sort=count', 'sort'],
    [`suggestions?from=${new Date(now).toISOString()}&to=${new Date(now - HOUR).toISOString()}`, 'from'],
  ])('GET /gates/{id}/%s is a 400 naming %s', async (path, name) => {
    const res = await t.call('GET', `/gates/${gateId}/${path}`)
    expect(res.status).toBe(400)
    expect(((await res.json()) as { detail: string }).detail).toContain(name)
  })

  test('listSuggestions: 404 for an unknown gate, 401 without the key', async () => {
    const missing = await t.call('GET', `/gates/${crypto.randomUUID()}/suggestions`)
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { type: string }).type).toBe('/errors/not-found')
    expect((await fetch(`${t.url}/gates/${gateId}/suggestions`)).status).toBe(401)
  })

  test('the noise rollups stay equal to what is stored after inserts, a retention cleanup, a rebuild and a gate deletion', async () => {
    const sql = t.database.db.sql
    expect(await noiseDrift(sql, gateId)).toEqual([])
    const gate = await newGate('pruned-noise')
    for (let i = 0; i < 24; i++) {
      const at = iso(i * 37 * MINUTE)
      const live = { n: 1, id: `a${i}` }
      const repeat = i % 3 === 0 ? undefined : repeatOf({ n: 1, id: i % 3 === 1 ? `a${i}` : `b${i}` }, at)
      const body = { ...captureBody({ path: `/items/${i % 4}`, created_at: at, live, shadow: { n: i % 2, id: `c${i}` } }), ...(repeat ? { live_repeat_response: repeat } : {}) }
      expect((await post(body, gate)).status).toBe(201)
    }
    expect(await noiseDrift(sql, gate)).toEqual([])
    await runCleanup(sql, { floorMs: 6 * HOUR, batchSize: 4 })
    expect(await noiseDrift(sql, gate)).toEqual([])
    expect(await insightDrift(sql, gate)).toEqual([])
    const fields = await get<Page<Field>>(`/gates/${gate}/fields?from=${iso(48 * HOUR)}&limit=100`)
    const [stored] = await sql<{ checks: string; noisy: string }[]>`
      SELECT count(*) FILTER (WHERE noise_result IN ('quiet', 'noisy')) AS checks, count(*) FILTER (WHERE noise_result = 'noisy') AS noisy
      FROM requests WHERE gate_id = ${gate}`
    const idField = fields.data.filter((f) => f.path === '/body/id')
    expect(idField.reduce((sum, f) => sum + f.noise_checks, 0)).toBe(Number(stored!.checks))
    expect(idField.reduce((sum, f) => sum + f.noise_count, 0)).toBe(Number(stored!.noisy))
    await rebuildRollups(sql, gate)
    expect(await noiseDrift(sql, gate)).toEqual([])
    expect((await t.call('DELETE', `/gates/${gate}`)).status).toBe(204)
    const [left] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM noise_rollups WHERE gate_id = ${gate}`
    expect(Number(left!.n)).toBe(0)
  })
})

describe.each(BACKENDS)('a capture with a noise check at the body limit on %s', (backend) => {
  const LIMIT = 1024 * 1024
  let t: TestApi
  beforeAll(async () => {
    t = await startTestApi(backend, { SVC_APP_MAX_BODY_SIZE: String(LIMIT) })
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t?.stop())

  test('four bodies of SVC_APP_MAX_BODY_SIZE each (request, live, shadow, repeat) are accepted whole', async () => {
    const gate = ((await (await t.call('POST', '/gates', { name: 'big', live_url: 'http://l:1', shadow_url: 'http://s:1' })).json()) as { data: { id: string } }).data.id
    const full = Buffer.alloc(LIMIT, 'a').toString('base64')
    const at = new Date().toISOString()
    const body = captureBody({ created_at: at }) as Body & { shadow_response: Record<string, unknown> }
    body.body = full
    body.live_response.body = full
    body.shadow_response.body = full
    const res = await t.call('POST', `/gates/${gate}/requests`, { ...body, live_repeat_response: { ...repeatOf('', at), body: full } })
    expect(res.status).toBe(201)
  })
})
