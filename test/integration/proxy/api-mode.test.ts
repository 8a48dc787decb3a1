/**
 * The proxy in API mode against the real API (test/support/api-server.ts,
 * PostgreSQL backend). A small switchable front sits between them so the
 * API can go down and come back on the same address.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ConfigError } from '../../../src/config/config-error.ts'
import { loadProxyConfig } from '../../../src/config/proxy-config.ts'
import { createLogger } from '../../../src/log/index.ts'
import { createProxy } from '../../../src/proxy/start-proxy.ts'
import { startTestApi, TEST_API_KEY, type TestApi } from '../../support/api-server.ts'
import { freePort, json, JSON_DOCUMENT, refusedUrl, startUpstreamPair, type TestUpstream, waitFor } from '../../support/upstreams.ts'
import { sumSamples } from '../../support/prometheus-text.ts'
import { startTestProxy, type ProxyUnderTest } from './proxy-harness.ts'

/** Passes requests to the API, or answers 503, or is down (connection refused). */
interface ApiFront {
  readonly url: string
  setMode(mode: 'pass' | 'fail' | 'down'): void
  stop(): void
}

function startApiFront(target: string): ApiFront {
  const port = freePort()
  let mode: 'pass' | 'fail' | 'down' = 'pass'
  const serve = () =>
    Bun.serve({
      hostname: '127.0.0.1',
      port,
      async fetch(request) {
        if (mode === 'fail') return new Response('{"title":"unavailable"}', { status: 503 })
        const url = new URL(request.url)
        const upstream = await fetch(target + url.pathname + url.search, {
          method: request.method,
          headers: request.headers,
          body: request.method === 'GET' ? undefined : await request.arrayBuffer(),
        })
        return new Response(await upstream.arrayBuffer(), { status: upstream.status, headers: upstream.headers })
      },
    })
  let server: ReturnType<typeof serve> | undefined = serve()
  return {
    url: `http://127.0.0.1:${port}`,
    setMode(next) {
      mode = next
      if (next === 'down' && server) {
        server.stop(true)
        server = undefined
      } else if (next !== 'down' && !server) {
        server = serve()
      }
    },
    stop: () => void server?.stop(true),
  }
}

let api: TestApi
let front: ApiFront
let live: TestUpstream
let shadow: TestUpstream
let stopPair: () => Promise<void>
let gateId: string

beforeAll(async () => {
  const pair = await startUpstreamPair()
  live = pair.live
  shadow = pair.shadow
  stopPair = pair.stop
  api = await startTestApi('postgres')
  front = startApiFront(api.url)
  const created = await api.call('POST', '/gates', { name: 'proxy-api-mode', live_url: live.url, shadow_url: shadow.url })
  gateId = ((await created.json()) as { data: { id: string } }).data.id
})

afterAll(async () => {
  front.stop()
  await api.stop()
  await stopPair()
})

function apiEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SVC_APP_API_URL: front.url,
    SVC_APP_GATE_ID: gateId,
    SVC_APP_API_KEY: TEST_API_KEY,
    SVC_APP_API_TIMEOUT: '3s',
    SVC_APP_RETRY_DELAY: '100ms',
    ...extra,
  }
}

async function withProxy(env: Record<string, string>, body: (proxy: ProxyUnderTest) => Promise<void>): Promise<void> {
  front.setMode('pass')
  live.reset()
  shadow.reset()
  const proxy = await startTestProxy(apiEnv(env))
  try {
    await body(proxy)
  } finally {
    await proxy.stop()
  }
}

interface StoredRequest {
  id: string
  method: string
  path: string
  raw_query?: string
  headers: Record<string, string[]>
  body: string
  live_response: { status_code: number; body: string; headers: Record<string, string[]> }
  shadow_response: { status_code: number; body: string }
  diff: { content: Array<{ op: string; path: string; value?: unknown }> }
}

/**
 * The capture of the request sent with this X-Request-ID: the capture's id
 * is the proxy's own, the client's id is among the stored headers.
 */
async function stored(clientId: string, gate = gateId): Promise<StoredRequest> {
  const list = await api.call('GET', `/gates/${gate}/requests?limit=20`)
  for (const { id } of ((await list.json()) as { data: Array<{ id: string }> }).data) {
    const request = ((await (await api.call('GET', `/gates/${gate}/requests/${id}`)).json()) as { data: StoredRequest }).data
    if (request.headers['X-Request-Id']?.[0] === clientId) return request
  }
  throw new Error(`no capture of the request with X-Request-ID ${clientId}`)
}

/** The has_diff of a capture, from the list summary (RequestDetail has the diff itself). */
async function hasDiff(id: string, gate = gateId): Promise<boolean | undefined> {
  const list = await api.call('GET', `/gates/${gate}/requests?limit=100`)
  return ((await list.json()) as { data: Array<{ id: string; has_diff: boolean }> }).data.find((s) => s.id === id)?.has_diff
}

describe('API mode', () => {
  test('fetches the gate at startup and reports each capture under an id of its own', () =>
    withProxy({}, async (proxy) => {
      expect((await fetch(`${proxy.adminUrl}/health/ready`)).status).toBe(200)
      const id = crypto.randomUUID()
      const response = await fetch(`${proxy.url}/json?page=3`, {
        headers: { 'x-request-id': id, authorization: 'Bearer end-user-secret', 'x-svc-mode': 'replay' },
      })
      expect(await response.text()).toBe(JSON.stringify(JSON_DOCUMENT))
      const counts = await proxy.settled()
      expect(counts.reported).toBe(1)
      const request = await stored(id)
      expect(request).toMatchObject({ method: 'GET', path: '/json', raw_query: 'page=3', diff: { content: [] } })
      expect(request.id).not.toBe(id)
      expect(request.headers['Authorization']).toEqual(['[REDACTED]'])
      // What the shadow was sent: X-Svc-Mode: shadow, in place of the client's own, never redacted.
      expect(request.headers['X-Svc-Mode']).toEqual(['shadow'])
      expect(shadow.requests[0]!.headers.get('x-svc-mode')).toBe('shadow')
      expect(JSON.parse(Buffer.from(request.live_response.body, 'base64').toString())).toEqual(JSON_DOCUMENT)
      expect(request.live_response.status_code).toBe(200)
      expect(request.live_response.headers['Content-Length']).toEqual([String(JSON.stringify(JSON_DOCUMENT).length)])
      // The proxy computes no diff in API mode.
      expect(await proxy.metric('svc_responses_compared_total')).toBe(0)
    }))

  test('the API computes the diff of what the proxy sent', () =>
    withProxy({}, async (proxy) => {
      shadow.route('/json', () => json({ ...JSON_DOCUMENT, pagination: { ...JSON_DOCUMENT.pagination, total: 99 } }))
      const id = crypto.randomUUID()
      await (await fetch(`${proxy.url}/json`, { headers: { 'x-request-id': id } })).text()
      await proxy.settled()
      const request = await stored(id)
      expect(request.diff.content).toEqual([{ op: 'replace', path: '/body/pagination/total', value: 99 }])
    }))

  test('a reused X-Request-ID loses no capture: each gets an id of its own, live and shadow still get the client\'s', () =>
    withProxy({}, async (proxy) => {
      let total = 0
      shadow.route('/json', () => json({ ...JSON_DOCUMENT, pagination: { ...JSON_DOCUMENT.pagination, total: ++total } }))
      const clientId = crypto.randomUUID()
      for (let i = 0; i < 2; i++) {
        expect(await (await fetch(`${proxy.url}/json`, { headers: { 'x-request-id': clientId } })).text()).toBe(JSON.stringify(JSON_DOCUMENT))
        await proxy.settled()
      }
      const counts = await proxy.settled()
      expect(counts.reported).toBe(2)
      const list = await api.call('GET', `/gates/${gateId}/requests?limit=2`)
      const ids = ((await list.json()) as { data: Array<{ id: string }> }).data.map((s) => s.id)
      const captures = await Promise.all(
        ids.map(async (id) => ((await (await api.call('GET', `/gates/${gateId}/requests/${id}`)).json()) as { data: StoredRequest }).data),
      )
      expect(captures.map((c) => c.headers['X-Request-Id'])).toEqual([[clientId], [clientId]])
      expect(captures.map((c) => c.diff.content[0]?.value).sort()).toEqual([1, 2])
      expect(new Set([clientId, ...ids]).size).toBe(3)
      expect(live.requests.map((r) => r.headers.get('x-request-id'))).toEqual([clientId, clientId])
      expect(shadow.requests.map((r) => r.headers.get('x-request-id'))).toEqual([clientId, clientId])
    }))

  test('a shadow that is down is stored with shadow status 0 and the error as body', async () => {
    const created = await api.call('POST', '/gates', {
      name: 'proxy-api-mode-down',
      live_url: live.url,
      shadow_url: refusedUrl(),
    })
    const downGate = ((await created.json()) as { data: { id: string } }).data.id
    const proxy = await startTestProxy(apiEnv({ SVC_APP_GATE_ID: downGate }))
    try {
      const id = crypto.randomUUID()
      expect((await fetch(`${proxy.url}/json`, { headers: { 'x-request-id': id } })).status).toBe(200)
      await proxy.settled()
      const request = await stored(id, downGate)
      expect(request.shadow_response.status_code).toBe(0)
      expect(Buffer.from(request.shadow_response.body, 'base64').toString()).toBe('shadow: connection refused')
      expect(await hasDiff(request.id, downGate)).toBe(true)

      // Inside the refusal window the shadow is not tried, and the API
      // still gets live's response in full (it stores it).
      const second = crypto.randomUUID()
      expect(await (await fetch(`${proxy.url}/json`, { headers: { 'x-request-id': second } })).text()).toBe(JSON.stringify(JSON_DOCUMENT))
      await proxy.settled()
      const inWindow = await stored(second, downGate)
      expect(JSON.parse(Buffer.from(inWindow.live_response.body, 'base64').toString())).toEqual(JSON_DOCUMENT)
      expect(inWindow.shadow_response.status_code).toBe(0)
      expect(Buffer.from(inWindow.shadow_response.body, 'base64').toString()).toStartWith('shadow: connection refused (not attempted')
    } finally {
      await proxy.stop()
    }
  })
})

describe('a failed shadow is still a capture', () => {
  test('a shadow that times out is stored with status 0, its error as body and has_diff true', () =>
    withProxy({ SVC_APP_SHADOW_TIMEOUT: '1s' }, async (proxy) => {
      shadow.route('/json', async () => {
        await Bun.sleep(2000)
        return json(JSON_DOCUMENT)
      })
      const ids: string[] = []
      for (let i = 0; i < 3; i++) {
        const id = crypto.randomUUID()
        ids.push(id)
        const response = await fetch(`${proxy.url}/json`, { headers: { 'x-request-id': id } })
        expect(await response.text()).toBe(JSON.stringify(JSON_DOCUMENT))
      }
      const counts = await proxy.settled()
      expect(counts.reported).toBe(3)
      expect(counts.skippedTotal).toBe(0)
      for (const id of ids) {
        const request = await stored(id)
        expect(request.shadow_response.status_code).toBe(0)
        expect(Buffer.from(request.shadow_response.body, 'base64').toString()).toBe('shadow: timed out after 1s')
        expect(JSON.parse(Buffer.from(request.live_response.body, 'base64').toString())).toEqual(JSON_DOCUMENT)
        expect(await hasDiff(request.id)).toBe(true)
      }
    }), 20_000)

  // A raw-socket shadow: a reset, a response that is not HTTP, a head past the client's limit.
  test.each([
    ['reset', 'shadow: connection reset'],
    ['bad status line', 'shadow: '],
    ['head too large', 'shadow: '],
  ] as const)('a shadow that fails with a %s is stored with status 0 and its error as body', async (failure, errorPrefix) => {
    const listener = Bun.listen({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        data(socket) {
          if (failure === 'reset') return void socket.terminate()
          if (failure === 'bad status line') socket.write('HTTP/1.1 abc\r\n\r\n')
          else socket.write(`HTTP/1.1 200 OK\r\nx-filler: ${'a'.repeat(100 * 1024)}\r\n\r\n`)
          socket.end()
        },
      },
    })
    const created = await api.call('POST', '/gates', {
      name: `proxy-api-mode-${failure.replaceAll(' ', '-')}`,
      live_url: live.url,
      shadow_url: `http://127.0.0.1:${listener.port}`,
    })
    const failingGate = ((await created.json()) as { data: { id: string } }).data.id
    const proxy = await startTestProxy(apiEnv({ SVC_APP_GATE_ID: failingGate }))
    try {
      const id = crypto.randomUUID()
      expect(await (await fetch(`${proxy.url}/json`, { headers: { 'x-request-id': id } })).text()).toBe(JSON.stringify(JSON_DOCUMENT))
      const counts = await proxy.settled()
      expect(counts.reported).toBe(1)
      const list = await api.call('GET', `/gates/${failingGate}/requests`)
      const [summary] = ((await list.json()) as { data: Array<{ id: string; has_diff: boolean }> }).data
      expect(summary!.has_diff).toBe(true)
      const request = ((await (await api.call('GET', `/gates/${failingGate}/requests/${summary!.id}`)).json()) as { data: StoredRequest }).data
      expect(request.shadow_response.status_code).toBe(0)
      expect(Buffer.from(request.shadow_response.body, 'base64').toString()).toStartWith(errorPrefix)
    } finally {
      await proxy.stop()
      listener.stop(true)
    }
  })
})

describe('body limits: SVC_APP_MAX_BODY_SIZE on the proxy and on the API', () => {
  const LIMIT = 4096
  let limited: TestApi
  let limitedGate: string

  beforeAll(async () => {
    limited = await startTestApi('postgres', { SVC_APP_MAX_BODY_SIZE: String(LIMIT) })
    const created = await limited.call('POST', '/gates', { name: 'proxy-body-limits', live_url: live.url, shadow_url: shadow.url })
    limitedGate = ((await created.json()) as { data: { id: string } }).data.id
  })

  afterAll(() => limited.stop())

  async function withLimitedProxy(env: Record<string, string>, body: (proxy: ProxyUnderTest) => Promise<void>) {
    live.reset()
    shadow.reset()
    const proxy = await startTestProxy(apiEnv({ SVC_APP_API_URL: limited.url, SVC_APP_GATE_ID: limitedGate, ...env }))
    try {
      await body(proxy)
    } finally {
      await proxy.stop()
    }
  }

  test('the same limit on both sides: three bodies at the limit are stored, one byte over is skipped by the proxy', () =>
    withLimitedProxy({ SVC_APP_MAX_BODY_SIZE: String(LIMIT), SVC_APP_SHADOW_RULES: 'allow POST:/at-limit' }, async (proxy) => {
      live.route('/at-limit', () => new Response(new Uint8Array(LIMIT).fill(97)))
      shadow.route('/at-limit', () => new Response(new Uint8Array(LIMIT).fill(98)))
      const sent = await fetch(`${proxy.url}/at-limit`, { method: 'POST', body: new Uint8Array(LIMIT).fill(99) })
      expect((await sent.bytes()).byteLength).toBe(LIMIT)
      let counts = await proxy.settled()
      expect(counts.reported).toBe(1)
      const list = await limited.call('GET', `/gates/${limitedGate}/requests?limit=1`)
      const [{ id }] = ((await list.json()) as { data: Array<{ id: string }> }).data as [{ id: string }]
      const request = ((await (await limited.call('GET', `/gates/${limitedGate}/requests/${id}`)).json()) as { data: StoredRequest }).data
      expect([request.body, request.live_response.body, request.shadow_response.body].map((b) => Buffer.from(b, 'base64').byteLength)).toEqual([LIMIT, LIMIT, LIMIT])

      const over = await fetch(`${proxy.url}/large?bytes=${LIMIT + 1}`)
      expect((await over.bytes()).byteLength).toBe(LIMIT + 1)
      counts = await proxy.settled()
      expect(counts.skipped.body_too_large).toBe(1)
      expect(counts.reported).toBe(1)
    }))

  test('a proxy with a larger limit than the API: the API\'s 413 is counted as body_too_large, once', () =>
    withLimitedProxy({ SVC_APP_MAX_BODY_SIZE: '0' }, async (proxy) => {
      const response = await fetch(`${proxy.url}/large?bytes=${LIMIT + 1}`)
      expect((await response.bytes()).byteLength).toBe(LIMIT + 1)
      const counts = await proxy.settled()
      expect(counts.skipped.body_too_large).toBe(1)
      expect(counts.skipped.report_failed).toBe(0)
      expect(await proxy.waitForRecord('capture rejected by the API')).toMatchObject({ status: 413, type: '/errors/payload-too-large' })
    }))
})

describe('API mode startup', () => {
  const logger = createLogger({ level: 'error', format: 'json', write: () => {} })

  async function startupError(env: Record<string, string>): Promise<ConfigError> {
    try {
      const proxy = await createProxy({ ...loadProxyConfig(apiEnv(env)), port: 0, adminPort: 0 }, {
        hostname: '127.0.0.1',
        logger,
      })
      await proxy.stop()
    } catch (error) {
      if (error instanceof ConfigError) return error
      throw error
    }
    throw new Error('expected a ConfigError')
  }

  test('an unknown gate fails startup with one line', async () => {
    const unknown = crypto.randomUUID()
    expect((await startupError({ SVC_APP_GATE_ID: unknown })).message).toBe(
      `SVC_APP_GATE_ID: "${unknown}" names no gate at ${front.url} (HTTP 404)`,
    )
  })

  test("the API URL's password never reaches the line, whichever way startup fails", async () => {
    const withPassword = front.url.replace('http://', 'http://ci:SEKRIT@')
    const message = (await startupError({ SVC_APP_API_URL: withPassword, SVC_APP_GATE_ID: crypto.randomUUID() })).message
    expect(message).toContain(front.url.replace('http://', 'http://ci:***@'))
    expect(message).not.toContain('SEKRIT')
  })

  test('a refused key fails startup without echoing it', async () => {
    const error = await startupError({ SVC_APP_API_KEY: 'wrong-key-0123456789' })
    expect(error.message).toBe(`SVC_APP_API_KEY: the value (20 characters, not shown) was refused by the API at ${front.url} (HTTP 401)`)
  })

  test('an API that is down fails startup after its retries, within SVC_APP_API_TIMEOUT', async () => {
    front.setMode('down')
    try {
      const started = performance.now()
      const error = await startupError({ SVC_APP_API_TIMEOUT: '2s', SVC_APP_RETRY_DELAY: '100ms' })
      expect(error.message).toBe(
        `SVC_APP_API_URL: "${front.url}" failed GET /gates/${gateId} on every attempt (4, SVC_APP_MAX_RETRIES + 1; the last: api: connection refused)`,
      )
      expect(performance.now() - started).toBeLessThan(4000)
      // Retries left but no time: the line names the timeout instead.
      const late = await startupError({ SVC_APP_API_TIMEOUT: '500ms', SVC_APP_RETRY_DELAY: '200ms', SVC_APP_MAX_RETRIES: '20' })
      expect(late.message).toStartWith(`SVC_APP_API_URL: "${front.url}" gave no answer to GET /gates/${gateId} within SVC_APP_API_TIMEOUT (`)
    } finally {
      front.setMode('pass')
    }
  })

  test('/health/ready is 503 until the gate is fetched', async () => {
    front.setMode('fail')
    const adminPort = freePort()
    const starting = createProxy(
      { ...loadProxyConfig({ SVC_APP_ADMIN_PORT: String(adminPort), ...apiEnv({ SVC_APP_RETRY_DELAY: '300ms', SVC_APP_MAX_RETRIES: '5', SVC_APP_API_TIMEOUT: '20s' }) }), port: 0 },
      { hostname: '127.0.0.1', logger },
    )
    const adminUrl = `http://127.0.0.1:${adminPort}`
    const notReady = await waitFor(async () => {
      try {
        const response = await fetch(`${adminUrl}/health/ready`)
        return response.status
      } catch {
        return undefined
      }
    }, 5000, 'the admin server')
    expect(notReady).toBe(503)
    expect((await fetch(`${adminUrl}/health/live`)).status).toBe(200)
    front.setMode('pass')
    const proxy = await starting
    try {
      expect((await fetch(`${adminUrl}/health/ready`)).status).toBe(200)
    } finally {
      await proxy.stop()
    }
  })
})

describe('API down mid-traffic', () => {
  test('the breaker opens, captures are dropped and counted, live never waits; it half-opens and closes when the API is back', () =>
    withProxy(
      {
        SVC_APP_MAX_RETRIES: '0',
        SVC_APP_API_TIMEOUT: '1s',
        SVC_APP_CB_FAILURE_THRESHOLD: '2',
        SVC_APP_CB_DELAY: '1s',
        SVC_APP_CB_SUCCESS_THRESHOLD: '2',
      },
      async (proxy) => {
        const state = async (name: string) =>
          sumSamples(await proxy.metricsText(), 'svc_api_circuit_breaker_state', { state: name })
        const get = async () => {
          const started = performance.now()
          const response = await fetch(`${proxy.url}/json`)
          await response.text()
          expect(response.status).toBe(200)
          return performance.now() - started
        }
        expect(await state('closed')).toBe(1)

        front.setMode('down')
        const latencies: number[] = []
        for (let i = 0; i < 2; i++) {
          latencies.push(await get())
          await proxy.settled()
        }
        expect(await state('open')).toBe(1)
        await proxy.waitForRecord('API circuit breaker open: captures are dropped until the API answers')
        for (let i = 0; i < 5; i++) latencies.push(await get())
        let counts = await proxy.settled()
        expect(counts.skipped.report_failed).toBe(2)
        expect(counts.skipped.breaker_open).toBe(5)
        // While open, requests are not even shadowed.
        expect(shadow.requests).toHaveLength(2)
        // Live never waited for the API.
        expect(Math.max(...latencies)).toBeLessThan(500)

        front.setMode('pass')
        // After SVC_APP_CB_DELAY the breaker is half-open; two successes close it.
        await waitFor(async () => ((await state('half-open')) === 1 ? true : undefined), 5000, 'half-open')
        await get()
        await proxy.settled()
        await get()
        counts = await proxy.settled()
        expect(await state('closed')).toBe(1)
        expect(counts.reported).toBe(2)
        expect(counts.reported + counts.skippedTotal).toBe(counts.received)
      },
    ), 30_000)
})
