/**
 * The API client's retries and breaker against a scripted HTTP server on
 * 127.0.0.1 (the real API cannot be told to fail on cue). The whole proxy
 * against the real API is in api-mode.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { createApiClient, type ApiClient } from '../../../../src/proxy/sinks/api-client.ts'
import { CircuitBreaker } from '../../../../src/proxy/policy/circuit-breaker.ts'
import { createUpstreamPool } from '../../../../src/proxy/upstream/upstream-pool.ts'
import type { UpstreamPool } from '../../../../src/proxy/upstream/upstream-client.ts'
import { DEFAULT_HTTP_CLIENT } from '../../../../src/proxy/policy/shadow-settings.ts'
import { refusedUrl } from '../../../support/upstreams.ts'

type Script = Array<number | { status: number; headers?: Record<string, string>; body?: unknown }>

let server: ReturnType<typeof Bun.serve>
let script: Script = []
const seen: Array<{ method: string; path: string; headers: Headers; body: string }> = []
let pool: UpstreamPool

beforeAll(() => {
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      seen.push({ method: request.method, path: new URL(request.url).pathname, headers: request.headers, body: await request.text() })
      const next = script.shift() ?? 201
      const { status, headers, body } = typeof next === 'number' ? { status: next, headers: {}, body: undefined } : next
      return new Response(JSON.stringify(body ?? { status }), { status, headers: { 'content-type': 'application/json', ...headers } })
    },
  })
  pool = createUpstreamPool({ settings: DEFAULT_HTTP_CLIENT })
})

afterAll(() => {
  pool.close()
  server.stop(true)
})

beforeEach(() => {
  script = []
  seen.length = 0
})

const sleeps: number[] = []
/** A clock that only the recorded waits move. */
let clock = 0
function client(breaker = new CircuitBreaker({ failureThreshold: 100 }), policy = {}, url = `http://127.0.0.1:${server.port}`): ApiClient {
  sleeps.length = 0
  clock = 0
  return createApiClient({
    upstream: pool.client('api', url),
    apiKey: 'proxy-key-0123456789',
    policy: { maxRetries: 3, initialDelayMs: 1000, deadlineMs: 30_000, ...policy },
    breaker,
    // Records the waits instead of sleeping them: the test stays fast and exact.
    sleep: async (ms) => {
      sleeps.push(ms)
      clock += ms
    },
    now: () => clock,
  })
}

const post = { method: 'POST' as const, path: '/gates/g/requests', body: '{"a":1}', headers: { 'x-request-id': 'id-1' } }

describe('API client', () => {
  test('sends the bearer key, JSON content type and X-Request-ID', async () => {
    const outcome = await client().call(post)
    expect(outcome).toMatchObject({ kind: 'ok', status: 201 })
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer proxy-key-0123456789')
    expect(seen[0]!.headers.get('content-type')).toBe('application/json')
    expect(seen[0]!.headers.get('x-request-id')).toBe('id-1')
    expect(seen[0]!.body).toBe('{"a":1}')
  })

  test('retries 5xx with a doubling delay, then succeeds', async () => {
    script = [503, 500, 201]
    expect(await client().call(post)).toMatchObject({ kind: 'ok' })
    expect(seen).toHaveLength(3)
    expect(sleeps).toEqual([1000, 2000])
  })

  test('gives up after SVC_APP_MAX_RETRIES retries', async () => {
    script = [500, 500, 500, 500, 500]
    expect(await client().call(post)).toEqual({ kind: 'failed', reason: 'HTTP 500', attempts: 4, endedBy: 'retries' })
    expect(seen).toHaveLength(4)
    expect(sleeps).toEqual([1000, 2000, 4000])
  })

  test('honours Retry-After on a 429', async () => {
    script = [{ status: 429, headers: { 'retry-after': '3' } }, 201]
    expect(await client().call(post)).toMatchObject({ kind: 'ok' })
    expect(sleeps).toEqual([3000])
  })

  test('honours Retry-After on a 503 (a full insert queue)', async () => {
    script = [{ status: 503, headers: { 'retry-after': '2' } }, 201]
    expect(await client().call(post)).toMatchObject({ kind: 'ok' })
    expect(sleeps).toEqual([2000])
  })

  test.each([400, 409, 413, 422])('never retries a %d: the capture is rejected', async (status) => {
    script = [status]
    expect(await client().call(post)).toMatchObject({ kind: 'rejected', status })
    expect(seen).toHaveLength(1)
  })

  test('never retries a 500 the API marks as caused by the capture', async () => {
    script = [{ status: 500, body: { type: '/errors/internal', status: 500, capture_rejected: true } }]
    expect(await client().call(post)).toMatchObject({ kind: 'rejected', status: 500 })
    expect(seen).toHaveLength(1)
  })

  test.each([401, 403, 404])('never retries a %d: the key or the gate is refused', async (status) => {
    script = [status]
    expect(await client().call(post)).toMatchObject({ kind: 'refused', status })
    expect(seen).toHaveLength(1)
  })

  test('stops when the next wait would pass the overall deadline', async () => {
    script = [500, 500, 500]
    expect(await client(undefined, { deadlineMs: 2500 }).call(post)).toMatchObject({ kind: 'failed', attempts: 2, endedBy: 'deadline' })
    expect(sleeps).toEqual([1000])
  })

  test('retries a refused connection', async () => {
    const outcome = await client(undefined, {}, refusedUrl()).call(post)
    expect(outcome).toEqual({ kind: 'failed', reason: 'api: connection refused', attempts: 4, endedBy: 'retries' })
  })

  test('a caller’s abort ends the call', async () => {
    script = [500, 500]
    const controller = new AbortController()
    const aborting = createApiClient({
      upstream: pool.client('api', `http://127.0.0.1:${server.port}`),
      apiKey: 'k'.repeat(16),
      policy: { maxRetries: 3, initialDelayMs: 1000, deadlineMs: 30_000 },
      breaker: new CircuitBreaker(),
      sleep: async () => {
        controller.abort(new Error('shutdown'))
        throw new Error('aborted')
      },
    })
    expect(await aborting.call({ ...post, signal: controller.signal })).toEqual({ kind: 'aborted' })
  })
})

describe('circuit breaker around every attempt (closed, open, half-open)', () => {
  test('opens after the failure threshold, refuses without calling, half-opens and closes', async () => {
    let now = 0
    const breaker = new CircuitBreaker({ failureThreshold: 3, delayMs: 60_000, successThreshold: 2, now: () => now })
    const api = client(breaker, { maxRetries: 0 })
    script = [500, 500, 500]
    for (let i = 0; i < 3; i++) expect((await api.call(post)).kind).toBe('failed')
    expect(breaker.state).toBe('open')
    expect(await api.call(post)).toEqual({ kind: 'breaker-open' })
    expect(seen).toHaveLength(3)
    now += 60_000
    expect(breaker.state).toBe('half-open')
    expect((await api.call(post)).kind).toBe('ok')
    expect(breaker.state).toBe('half-open')
    expect((await api.call(post)).kind).toBe('ok')
    expect(breaker.state).toBe('closed')
  })

  test('a rejected capture is not a breaker failure: the API answered', async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 2 })
    script = [400, 409, 413, { status: 500, body: { capture_rejected: true } }, 422]
    for (let i = 0; i < 5; i++) expect((await client(breaker).call(post)).kind).toBe('rejected')
    expect(breaker.state).toBe('closed')
    expect(seen).toHaveLength(5)
  })

  test('429 and 503 are not breaker failures: the API is up but busy', async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 2 })
    script = [429, 503, 429, 503, 429, 503, 429, 503]
    for (let i = 0; i < 2; i++) expect(await client(breaker).call(post)).toMatchObject({ kind: 'failed', reason: 'HTTP 503', attempts: 4 })
    expect(breaker.state).toBe('closed')
  })

  test('401, 403 and 404 are breaker failures: every capture would get the same', async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 2, delayMs: 60_000 })
    script = [401, 404]
    expect((await client(breaker).call(post)).kind).toBe('refused')
    expect((await client(breaker).call(post)).kind).toBe('refused')
    expect(breaker.state).toBe('open')
    expect(await client(breaker).call(post)).toEqual({ kind: 'breaker-open' })
  })

  test('a 500 without the mark is a breaker failure', async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 2, delayMs: 60_000 })
    script = [{ status: 500, body: { type: '/errors/internal' } }, 502]
    expect(await client(breaker, { maxRetries: 0 }).call(post)).toMatchObject({ kind: 'failed', reason: 'HTTP 500' })
    expect(await client(breaker, { maxRetries: 0 }).call(post)).toMatchObject({ kind: 'failed', reason: 'HTTP 502' })
    expect(breaker.state).toBe('open')
  })

  test('retries stop as soon as the breaker opens', async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 2, delayMs: 60_000 })
    script = [500, 500, 500, 500]
    expect(await client(breaker).call(post)).toEqual({ kind: 'breaker-open' })
    expect(seen).toHaveLength(2)
  })
})
