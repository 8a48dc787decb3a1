import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody, type CaptureSpec } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

interface Verdict {
  verdict: 'pass' | 'fail' | 'inconclusive'
  checks: Array<{ name: string; scope: string; value: number; threshold: number; pass: boolean }>
  window: { from: string; to: string }
  requests: number
  live_failures: number
  ignore_noise: boolean
  noise_ignored: number
}

const MINUTE = 60_000
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64')

describe.each(BACKENDS)('getVerdict on %s', (backend) => {
  let t: TestApi
  const now = Date.now()
  const iso = (msAgo: number) => new Date(now - msAgo).toISOString()

  async function newGate(name: string): Promise<string> {
    const res = await t.call('POST', '/gates', { name, live_url: `http://live/${name}`, shadow_url: `http://shadow/${name}` })
    return ((await res.json()) as { data: { id: string } }).data.id
  }

  /** Stores captures, `latency` overriding both sides' latency_ms when given. */
  async function store(gateId: string, specs: Array<CaptureSpec & { liveMs?: number; shadowMs?: number }>) {
    for (let i = 0; i < specs.length; i += 25) {
      const responses = await Promise.all(
        specs.slice(i, i + 25).map((spec) => {
          const body = captureBody(spec) as { live_response: { latency_ms: number }; shadow_response: { latency_ms: number; body: string; headers: unknown } }
          if (spec.liveMs !== undefined) body.live_response.latency_ms = spec.liveMs
          if (spec.shadowMs !== undefined) body.shadow_response.latency_ms = spec.shadowMs
          return t.call('POST', `/gates/${gateId}/requests`, body)
        }),
      )
      for (const res of responses) expect(res.status).toBe(201)
    }
  }

  async function verdict(gateId: string, query = ''): Promise<Verdict> {
    const res = await t.call('GET', `/gates/${gateId}/verdict${query}`)
    expect(res.status).toBe(200)
    return ((await res.json()) as { data: Verdict }).data
  }

  const failing = (v: Verdict) => v.checks.filter((c) => !c.pass).map((c) => `${c.name}@${c.scope}`)

  let gateId: string
  beforeAll(async () => {
    t = await startTestApi(backend)
    gateId = await newGate('verdict')
    // 200 captures in the last hour: 6 differ, 4 shadows failed (status 0), 2 live failures (not the
    // candidate's), /slow/{id} three times slower on the shadow; and 50 more, all differing, two hours ago.
    const recent: Array<CaptureSpec & { liveMs?: number; shadowMs?: number }> = []
    for (let i = 0; i < 200; i++) {
      const spec: CaptureSpec & { liveMs?: number; shadowMs?: number } = { path: `/fast/${i}`, created_at: iso(10 * MINUTE + i * 1000), liveMs: 20, shadowMs: 22 }
      if (i < 6) spec.shadow = { ok: false }
      else if (i < 10) Object.assign(spec, { shadowStatus: 0, shadowHeaders: {}, shadow: 'shadow: timed out after 1000 ms' })
      else if (i < 12) Object.assign(spec, { liveStatus: 0, liveHeaders: {}, live: 'live: connection refused' })
      else if (i < 40) Object.assign(spec, { path: `/slow/${i}`, liveMs: 100, shadowMs: 300 })
      recent.push(spec)
    }
    const old = Array.from({ length: 50 }, (_, i) => ({ path: `/fast/${i}`, created_at: iso(2 * 60 * MINUTE + i * 1000), shadow: { ok: false } }))
    await store(gateId, [...recent, ...old])
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t.stop())

  test('counts the last hour by default: diff rate, failed shadows only, and each endpoint\'s latency ratio', async () => {
    const v = await verdict(gateId, '?max_latency_ratio=2')
    // The 2 captures whose live failed are in no count: 198 requests.
    expect(v).toMatchObject({ requests: 198, live_failures: 2 })
    // No capture had a noise check: nothing is classified noise, nothing left out.
    expect(v).toMatchObject({ ignore_noise: true, noise_ignored: 0 })
    expect(Date.parse(v.window.to) - Date.parse(v.window.from)).toBe(60 * MINUTE)
    expect(Math.abs(Date.parse(v.window.to) - Date.now())).toBeLessThan(60_000)
    expect(v.checks.slice(0, 3)).toEqual([
      { name: 'requests', scope: 'gate', value: 198, threshold: 100, pass: true },
      { name: 'diff_rate', scope: 'gate', value: 6 / 198, threshold: 0.01, pass: false },
      { name: 'error_rate', scope: 'gate', value: 4 / 198, threshold: 0.01, pass: false },
    ])
    const slow = v.checks.find((c) => c.scope === 'GET /slow/{id}')!
    expect(slow.name).toBe('latency_ratio')
    // 100 and 300 ms read back from their buckets (within 12.5 %, docs/insights.md).
    expect(slow.value).toBeGreaterThan(2.4)
    expect(slow.value).toBeLessThan(3.6)
    expect(slow.pass).toBe(false)
    expect(v.verdict).toBe('fail')
    expect(failing(v)).toEqual(['diff_rate@gate', 'error_rate@gate', 'latency_ratio@GET /slow/{id}'])
  })

  test('the query overrides the thresholds, one at a time', async () => {
    const v = await verdict(gateId, '?max_diff_rate=0.05&max_error_rate=0.03&max_latency_ratio=4')
    expect(v.verdict).toBe('pass')
    expect(v.checks.map((c) => c.threshold).slice(0, 3)).toEqual([100, 0.05, 0.03])
  })

  test('too few requests is inconclusive, whatever else fails', async () => {
    const v = await verdict(gateId, '?min_requests=199')
    expect(v.verdict).toBe('inconclusive')
    expect(failing(v)[0]).toBe('requests@gate')
  })

  test('a window where live alone failed is inconclusive: nothing was compared; where both failed, the shadow failed too', async () => {
    const down = await newGate('verdict-live-down')
    const liveDown = { liveStatus: 0, liveHeaders: {}, live: 'live: timed out after 5s', shadowStatus: 500, shadow: { error: 'boom' } }
    await store(down, Array.from({ length: 120 }, (_, i) => ({ path: `/p/${i}`, created_at: iso(MINUTE + i * 100), ...liveDown })))
    const v = await verdict(down)
    expect(v).toMatchObject({ verdict: 'inconclusive', requests: 0, live_failures: 120 })
    expect(v.checks.slice(0, 3).map((c) => c.value)).toEqual([0, 0, 0])
    const both = { ...liveDown, shadowStatus: 0, shadowHeaders: {}, shadow: 'shadow: connection refused' }
    await store(down, Array.from({ length: 100 }, (_, i) => ({ path: `/q/${i}`, created_at: iso(MINUTE + i * 100), ...both })))
    const after = await verdict(down)
    expect(after).toMatchObject({ verdict: 'fail', requests: 100, live_failures: 120 })
    expect(after.checks[2]).toMatchObject({ name: 'error_rate', value: 1, pass: false })
  })

  test('an explicit window counts only its minutes', async () => {
    const v = await verdict(gateId, `?from=${iso(3 * 60 * MINUTE)}&to=${iso(90 * MINUTE)}&min_requests=10`)
    expect(v.requests).toBe(50)
    expect(v.checks[1]).toEqual({ name: 'diff_rate', scope: 'gate', value: 1, threshold: 0.01, pass: false })
    const empty = await verdict(gateId, `?from=${iso(30 * 24 * 60 * MINUTE)}&to=${iso(29 * 24 * 60 * MINUTE)}`)
    expect(empty).toMatchObject({ verdict: 'inconclusive', requests: 0 })
    expect(empty.checks.slice(1, 3).map((c) => c.value)).toEqual([0, 0])
  })

  test("the gate's verdict field sets its defaults, PATCH-able and returned with the gate; the query still wins", async () => {
    const other = await newGate('verdict-settings')
    await store(other, Array.from({ length: 20 }, (_, i) => ({ path: `/a/${i}`, created_at: iso(MINUTE + i), shadow: i < 2 ? { ok: false } : undefined })))
    expect((await verdict(other)).verdict).toBe('inconclusive')
    const patched = await t.call('PATCH', `/gates/${other}`, { verdict: { min_requests: 20, max_diff_rate: 0.1 } })
    expect(patched.status).toBe(200)
    expect(((await patched.json()) as { data: { verdict: unknown } }).data.verdict).toEqual({ min_requests: 20, max_diff_rate: 0.1 })
    expect(((await (await t.call('GET', `/gates/${other}`)).json()) as { data: { verdict: unknown } }).data.verdict).toEqual({
      min_requests: 20,
      max_diff_rate: 0.1,
    })
    const v = await verdict(other)
    expect(v.verdict).toBe('pass')
    expect(v.checks.slice(0, 3).map((c) => c.threshold)).toEqual([20, 0.1, 0.01])
    expect((await verdict(other, '?max_diff_rate=0.05')).verdict).toBe('fail')
    // {} clears them: back to the built-in defaults.
    await t.call('PATCH', `/gates/${other}`, { verdict: {} })
    expect((await verdict(other)).checks[0]!.threshold).toBe(100)
  })

  test.each([
    ['?max_diff_rate=1.5', 'max_diff_rate'],
    ['?max_error_rate=-0.1', 'max_error_rate'],
    ['?max_latency_ratio=0', 'max_latency_ratio'],
    ['?min_requests=2.5', 'min_requests'],
    ['?min_requests=0', 'min_requests'],
    ['?from=yesterday', 'from'],
    ['?ignore_noise=no', 'ignore_noise'],
    ['?ignore_noise=', 'ignore_noise'],
    [`?from=${new Date(now).toISOString()}&to=${new Date(now - MINUTE).toISOString()}`, 'from'],
  ])('%s is a 400 naming %s', async (query, name) => {
    const res = await t.call('GET', `/gates/${gateId}/verdict${query}`)
    expect(res.status).toBe(400)
    expect(((await res.json()) as { detail: string }).detail).toContain(name)
  })

  test('ignore_noise: diffs only in fields classified noise are left out by default, counted with false', async () => {
    const noisy = await newGate('verdict-noise')
    const bodies: unknown[] = []
    // /n/{id}: request_id differs from the shadow and from live's own repeat in all 40 (noise); price from
    // the shadow only, in 10 of them (real). /u/{id}: 5 of 20 differ in request_id, without noise checks (unknown).
    for (let i = 0; i < 40; i++) {
      const at = iso(MINUTE + i * 1000)
      const live = { id: i, price: 10, request_id: `live-${i}` }
      bodies.push({
        ...captureBody({ path: `/n/${i}`, created_at: at, live, shadow: { ...live, price: i < 10 ? 11 : 10, request_id: `shadow-${i}` } }),
        live_repeat_response: { status_code: 200, headers: { 'Content-Type': ['application/json'] }, body: b64({ ...live, request_id: `repeat-${i}` }), latency_ms: 9, created_at: at },
      })
    }
    for (let i = 0; i < 20; i++) {
      const live = { id: i, request_id: 'same' }
      bodies.push(captureBody({ path: `/u/${i}`, created_at: iso(MINUTE + i * 1000), live, shadow: { ...live, request_id: i < 5 ? 'other' : 'same' } }))
    }
    for (const body of bodies) expect((await t.call('POST', `/gates/${noisy}/requests`, body)).status).toBe(201)
    const fields = ((await (await t.call('GET', `/gates/${noisy}/fields?limit=100`)).json()) as { data: Array<{ template: string; path: string; classification: string }> }).data
    expect(fields.map((f) => `${f.template} ${f.path} ${f.classification}`).sort()).toEqual([
      '/n/{id} /body/price real',
      '/n/{id} /body/request_id noise',
      '/u/{id} /body/request_id unknown',
    ])

    const ignored = await verdict(noisy, '?min_requests=60&max_diff_rate=0.25')
    // 45 diffs, 30 of them in request_id alone on /n/{id}: 15 count.
    expect(ignored).toMatchObject({ verdict: 'pass', requests: 60, ignore_noise: true, noise_ignored: 30 })
    expect(ignored.checks[1]).toEqual({ name: 'diff_rate', scope: 'gate', value: 0.25, threshold: 0.25, pass: true })
    const explicit = await verdict(noisy, '?min_requests=60&max_diff_rate=0.25&ignore_noise=true')
    expect({ ...explicit, window: null }).toEqual({ ...ignored, window: null })

    const counted = await verdict(noisy, '?min_requests=60&max_diff_rate=0.25&ignore_noise=false')
    expect(counted).toMatchObject({ verdict: 'fail', ignore_noise: false, noise_ignored: 0 })
    expect(counted.checks[1]).toEqual({ name: 'diff_rate', scope: 'gate', value: 0.75, threshold: 0.25, pass: false })
  })

  test.each([
    ['{"verdict":{"max_diff_rate":2}}', 'max_diff_rate'],
    ['{"verdict":{"min_requests":0}}', 'min_requests'],
    ['{"verdict":{"max_latency_ratio":"2"}}', 'max_latency_ratio'],
    ['{"verdict":{"max_noise":1}}', 'max_noise'],
    ['{"verdict":0.5}', 'verdict'],
  ])('updateGate with %s is a 400 naming %s', async (body, name) => {
    const res = await t.call('PATCH', `/gates/${gateId}`, body)
    expect(res.status).toBe(400)
    expect(((await res.json()) as { detail: string }).detail).toContain(name)
  })

  test('an unknown gate is a 404, a missing key a 401', async () => {
    expect((await t.call('GET', `/gates/${crypto.randomUUID()}/verdict`)).status).toBe(404)
    expect((await fetch(`${t.url}/gates/${gateId}/verdict`)).status).toBe(401)
  })
})
