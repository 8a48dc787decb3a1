/**
 * The API client's retries and breaker against a scripted HTTP server on
 * 127.0.0.1 (the real API cannot be told to fail on cue). The whole proxy
 * against the real API is in api-mode.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { createApiClient, type ApiClient } from '../../../src/proxy/api-client.ts'
import { CircuitBreaker } from '../../../src/proxy/circuit-breaker.ts'
import { createUpstreamPool, type UpstreamPool } from '../../../src/proxy/upstream-pool.ts'
import { DEFAULT_HTTP_CLIENT } from '../../../src/proxy/shadow-settings.ts'
import { freePort } from '../../support/upstreams.ts'

type Script = Array<number | { status: number; headers?: Record<string, string> }>

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
      const { status, headers } = typeof next === 'number' ? { status: next, headers: {} } : next
      return new Response(JSON.stringify({ status }), { status, headers: { 'content-type': 'application/json', ...headers } })
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

  test('never retries another 4xx', async () => {
    script = [400]
    expect(await client().call(post)).toMatchObject({ kind: 'rejected', status: 400 })
    expect(seen).toHaveLength(1)
  })

  test('stops when the next wait would pass the overall deadline', async () => {
    script = [500, 500, 500]
    expect(await client(undefined, { deadlineMs: 2500 }).call(post)).toMatchObject({ kind: 'failed', attempts: 2, endedBy: 'deadline' })
    expect(sleeps).toEqual([1000])
  })

  test('retries a refused connection', async () => {
    const outcome = await client(undefined, {}, `http://127.0.0.1:${freePort()}`).call(post)
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

describe('circuit breaker around every attempt (SPEC.md "States and transitions")', () => {
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

  test('a 4xx is not a breaker failure: the API answered', async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1 })
    script = [404]
    await client(breaker).call(post)
    expect(breaker.state).toBe('closed')
  })

  test('retries stop as soon as the breaker opens', async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 2, delayMs: 60_000 })
    script = [500, 500, 500, 500]
    expect(await client(breaker).call(post)).toEqual({ kind: 'breaker-open' })
    expect(seen).toHaveLength(2)
  })
})
