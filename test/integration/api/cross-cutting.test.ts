import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { startTestApi, TEST_API_KEY, type TestApi } from '../../support/api-server.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

const gateId = '00000000-0000-4000-8000-000000000000'
/**
 * Every operation of docs/reference/api.md "Operations", with a body where it
 * needs one.
 */
const PROTECTED: Array<[string, string, unknown]> = [
  ['GET', '/config', undefined],
  ['GET', '/stats', undefined],
  ['GET', '/gates', undefined],
  ['POST', '/gates', { name: 'a', live_url: 'http://a', shadow_url: 'http://b' }],
  ['GET', `/gates/${gateId}`, undefined],
  ['PATCH', `/gates/${gateId}`, { name: 'b' }],
  ['DELETE', `/gates/${gateId}`, undefined],
  ['GET', `/gates/${gateId}/requests`, undefined],
  ['POST', `/gates/${gateId}/requests`, {}],
  ['GET', `/gates/${gateId}/requests/${gateId}`, undefined],
]

describe.each(BACKENDS)('authentication, errors and headers on %s', (backend) => {
  let t: TestApi
  beforeAll(async () => {
    t = await startTestApi(backend, { SVC_APP_HSTS_ENABLED: 'true' })
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  test.each(PROTECTED)('%s %s needs the bearer key', async (method, path, body) => {
    for (const authorization of [undefined, 'Bearer wrong-key-wrong-key', `Basic ${TEST_API_KEY}`, TEST_API_KEY]) {
      const res = await fetch(t.url + path, {
        method,
        headers: { ...(authorization ? { authorization } : {}), 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe('Bearer')
      expect(res.headers.get('content-type')).toContain('application/problem+json')
      expect(await res.json()).toMatchObject({ type: '/errors/unauthorized', title: 'Unauthorized', status: 401, instance: path })
    }
  })

  test.each(['/health/live', '/health/ready', '/metrics', '/swagger', '/swagger/json'])('%s needs no key', async (path) => {
    expect((await fetch(t.url + path)).status).toBe(200)
  })

  test('an unknown Swagger UI asset is a 404 problem', async () => {
    const res = await fetch(t.url + '/swagger/assets/nope.js')
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toContain('application/problem+json')
    expect(await res.json()).toMatchObject({ type: '/errors/not-found', status: 404 })
  })

  test('security headers are on every response: success, error, unauthenticated, health', async () => {
    const responses = [
      await t.call('GET', '/gates'),
      await t.call('GET', `/gates/${gateId}`),
      await fetch(t.url + '/gates'),
      await fetch(t.url + '/health/live'),
      await t.call('GET', '/nowhere'),
    ]
    for (const res of responses) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('x-frame-options')).toBe('DENY')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains')
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
  })

  test('no CORS headers when SVC_APP_CORS_ORIGINS is unset', async () => {
    const res = await t.call('GET', '/gates', undefined, { origin: 'http://hub.example' })
    expect([...res.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([])
  })

  test('an unknown route is a 404 problem; a wrong method on a known route is a 405 with Allow', async () => {
    const unknown = await t.call('GET', '/nowhere')
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ type: '/errors/not-found', status: 404, instance: '/nowhere' })
    const wrong = await t.call('PUT', '/gates')
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST')
    expect(await wrong.json()).toMatchObject({ type: '/errors/method-not-allowed', status: 405 })
  })

  test('a body over SVC_APP_MAX_BODY_SIZE is a 413 problem, declared or chunked', async () => {
    const small = await startTestApi(backend, { SVC_APP_MAX_BODY_SIZE: '1024' })
    try {
      const big = JSON.stringify({ name: 'x'.repeat(2000), live_url: 'http://a', shadow_url: 'http://b' })
      const declared = await small.call('POST', '/gates', big)
      expect(declared.status).toBe(413)
      expect(await declared.json()).toMatchObject({ type: '/errors/payload-too-large', status: 413 })
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big))
          controller.close()
        },
      })
      const chunked = await fetch(small.url + '/gates', {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
        body: stream,
      })
      expect(chunked.status).toBe(413)
    } finally {
      await small.stop()
    }
  })

  test('a body nested too deeply is a 400 problem, refused before it is parsed', async () => {
    const deep = `{"name":"n","live_url":"http://a","shadow_url":"http://b","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`
    const res = await t.call('POST', '/gates', deep)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: '/errors/invalid-request-body', status: 400, detail: expect.stringContaining('nests deeper than') })
    // Malformed JSON is still said as such.
    const broken = await t.call('POST', '/gates', '{"name":')
    expect(broken.status).toBe(400)
    expect(await broken.json()).toMatchObject({ detail: 'the request body is not valid JSON' })
  })

  test.each([
    ['POST', '/gates', '[]'],
    ['PATCH', `/gates/${gateId}`, '[]'],
    ['POST', `/gates/${gateId}/rediff`, '[1,2]'],
    ['POST', `/gates/${gateId}/diff-config/preview`, 'null'],
    ['POST', `/gates/${gateId}/requests`, '"text"'],
    ['POST', '/gates', '42'],
  ])('%s %s with %s is a 400: a body must be a JSON object', async (method, path, body) => {
    const res = await t.call(method, path, body)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: '/errors/invalid-request-body', detail: 'the request body must be a JSON object' })
  })

  test.each([
    ['GET', '/config?bogus_param=1'],
    ['GET', '/stats?bogus_param=1'],
    ['POST', '/gates?bogus_param=1'],
    ['GET', `/gates/${gateId}?bogus_param=1`],
    ['PATCH', `/gates/${gateId}?bogus_param=1`],
    ['DELETE', `/gates/${gateId}?bogus_param=1`],
    ['POST', `/gates/${gateId}/requests?bogus_param=1`],
    ['GET', `/gates/${gateId}/requests/${gateId}?bogus_param=1`],
    ['POST', `/gates/${gateId}/diff-config/preview?bogus_param=1`],
    ['POST', `/gates/${gateId}/rediff?bogus_param=1`],
    ['GET', `/gates/${gateId}/jobs/${gateId}?bogus_param=1`],
    ['DELETE', `/gates/${gateId}/jobs/${gateId}?bogus_param=1`],
  ])('%s %s: an operation without query parameters refuses one, naming it', async (method, path) => {
    const res = await t.call(method, path, method === 'POST' || method === 'PATCH' ? {} : undefined)
    expect(res.status).toBe(400)
    const problem = (await res.json()) as { type: string; detail: string }
    expect(problem.type).toBe('/errors/invalid-parameter')
    expect(problem.detail).toContain('bogus_param')
  })

  test('a request without the key is refused before its body is read', async () => {
    // A chunked body that never ends: its 401 must not wait for it.
    const { hostname, port } = new URL(t.url)
    const socket = connect({ host: hostname, port: Number(port) })
    const received: Buffer[] = []
    socket.on('data', (chunk: Buffer) => received.push(chunk))
    socket.on('error', () => {})
    socket.write(`POST /gates HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`)
    socket.write(`8000\r\n${'x'.repeat(0x8000)}\r\n`)
    try {
      const deadline = Date.now() + 3000
      while (!Buffer.concat(received).includes('\r\n\r\n') && Date.now() < deadline) await Bun.sleep(10)
      expect(Buffer.concat(received).toString()).toStartWith('HTTP/1.1 401')
    } finally {
      socket.destroy()
    }
  })

  test('a 500 says nothing internal and logs the cause', async () => {
    const original = t.api.context.stats.globalStats
    t.api.context.stats.globalStats = async () => {
      throw new Error('relation "secret_table" does not exist')
    }
    try {
      const res = await t.call('GET', '/stats')
      expect(res.status).toBe(500)
      const text = await res.text()
      expect(text).not.toContain('secret_table')
      expect(JSON.parse(text)).toMatchObject({ type: '/errors/internal', status: 500 })
      expect('instance' in JSON.parse(text)).toBe(false)
      expect(t.logs.some((line) => line.includes('secret_table'))).toBe(true)
    } finally {
      t.api.context.stats.globalStats = original
    }
  })

  test('a response that fails its own schema is a logged 500, not a client error', async () => {
    const original = t.api.context.stats.globalStats
    t.api.context.stats.globalStats = async () =>
      ({ total_gates: 'stray_value', total_requests_24h: 2, total_diff_rate: 0 }) as unknown as Awaited<ReturnType<typeof original>>
    try {
      const res = await t.call('GET', '/stats')
      expect(res.status).toBe(500)
      expect(await res.json()).toMatchObject({ type: '/errors/internal', status: 500 })
      expect(t.logs.some((line) => line.includes('the response failed its own schema: data.total_gates'))).toBe(true)
    } finally {
      t.api.context.stats.globalStats = original
    }
  })

  test('one log record per request with response.status and response.latency, never the key', async () => {
    await t.call('GET', '/config')
    const record = t.logs.map((l) => JSON.parse(l) as Record<string, unknown>).findLast((r) => r['request.path'] === '/config')!
    expect(record['response.status']).toBe(200)
    expect(typeof record['response.latency']).toBe('number')
    expect(t.logs.join('\n')).not.toContain(TEST_API_KEY)
  })

  test('getConfig and getGlobalStats', async () => {
    expect(await (await t.call('GET', '/config')).json()).toEqual({ data: { retention: '720h' } })
    const stats = (await (await t.call('GET', '/stats')).json()) as { data: Record<string, number> }
    expect(Object.keys(stats.data).sort()).toEqual(['total_diff_rate', 'total_gates', 'total_requests_24h'])
  })
})

describe.each(BACKENDS)('CORS and rate limiting on %s', (backend) => {
  test('CORS: the configured origin, the documented methods and headers, preflight without a key', async () => {
    const t = await startTestApi(backend, { SVC_APP_CORS_ORIGINS: 'http://hub.example:8070' })
    try {
      const res = await t.call('GET', '/gates', undefined, { origin: 'http://hub.example:8070' })
      expect(res.headers.get('access-control-allow-origin')).toBe('http://hub.example:8070')
      const preflight = await fetch(t.url + '/gates', {
        method: 'OPTIONS',
        headers: { origin: 'http://hub.example:8070', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      })
      expect(preflight.status).toBeLessThan(300)
      expect(preflight.headers.get('access-control-allow-origin')).toBe('http://hub.example:8070')
      expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, PATCH, DELETE, OPTIONS')
      expect(preflight.headers.get('access-control-allow-headers')).toBe('Content-Type, Authorization')
      expect(preflight.headers.get('access-control-max-age')).toBe('86400')
      const foreign = await t.call('GET', '/gates', undefined, { origin: 'http://evil.example' })
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull()
      // The preflight answers OPTIONS on any path; that makes no path known.
      const unknown = await t.call('GET', '/nowhere')
      expect(unknown.status).toBe(404)
      expect(await unknown.json()).toMatchObject({ type: '/errors/not-found', status: 404 })
      const wrong = await t.call('PUT', '/gates')
      expect(wrong.status).toBe(405)
      expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS')
      expect((await t.call('GET', '/')).status).toBe(404)
    } finally {
      await t.stop()
    }
  })

  test('CORS: a body over the limit, refused before the app runs, is still readable by the origin', async () => {
    const t = await startTestApi(backend, { SVC_APP_CORS_ORIGINS: 'http://hub.example:8070', SVC_APP_MAX_BODY_SIZE: '1024' })
    try {
      const big = JSON.stringify({ name: 'x'.repeat(2000), live_url: 'http://a', shadow_url: 'http://b' })
      const res = await t.call('POST', '/gates', big, { origin: 'http://hub.example:8070' })
      expect(res.status).toBe(413)
      expect(res.headers.get('access-control-allow-origin')).toBe('http://hub.example:8070')
      expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-ID')
      const foreign = await t.call('POST', '/gates', big, { origin: 'http://evil.example' })
      expect(foreign.status).toBe(413)
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull()
    } finally {
      await t.stop()
    }
  })

  test('an untrusted peer is limited as itself, whatever X-Forwarded-For says', async () => {
    const t = await startTestApi(backend, { SVC_APP_RATE_LIMIT: '3' })
    try {
      const statuses = []
      for (let i = 0; i < 5; i++) statuses.push((await t.call('GET', '/config', undefined, { 'x-forwarded-for': `198.51.100.${i}` })).status)
      expect(statuses).toEqual([200, 200, 200, 429, 429])
      const limited = await t.call('GET', '/config')
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(await limited.json()).toMatchObject({ type: '/errors/rate-limited', status: 429 })
      expect((await fetch(t.url + '/health/live')).status).toBe(200)
    } finally {
      await t.stop()
    }
  })

  test('behind a trusted proxy, each forwarded client has its own bucket', async () => {
    const t = await startTestApi(backend, { SVC_APP_RATE_LIMIT: '2', SVC_APP_TRUSTED_PROXIES: '127.0.0.1, ::1' })
    try {
      const as = (client: string) => t.call('GET', '/config', undefined, { 'x-forwarded-for': `${client}, 127.0.0.1` })
      expect([(await as('203.0.113.1')).status, (await as('203.0.113.1')).status, (await as('203.0.113.1')).status]).toEqual([200, 200, 429])
      expect((await as('203.0.113.2')).status).toBe(200)
      const realIp = await t.call('GET', '/config', undefined, { 'x-real-ip': '203.0.113.3' })
      expect(realIp.status).toBe(200)
    } finally {
      await t.stop()
    }
  })
})
