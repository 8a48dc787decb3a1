import { describe, expect, test } from 'bun:test'
import { planReplay, SAFE_METHODS, type ReplayPolicy } from '../../../src/replay/replay-plan.ts'
import type { StoredCapture } from '../../../src/replay/stored-capture.ts'

function capture(spec: Partial<StoredCapture> = {}): StoredCapture {
  const live = { id: crypto.randomUUID(), status_code: 200, headers: {}, body: '', latency_ms: 5, created_at: '2026-11-26T10:00:00Z' }
  return {
    id: crypto.randomUUID(),
    method: 'GET',
    path: '/items/1',
    headers: { Accept: ['application/json'] },
    body: '',
    created_at: '2026-11-26T10:00:00Z',
    live_response: live,
    shadow_response: live,
    ...spec,
  }
}

const policy = (spec: Partial<ReplayPolicy> = {}): ReplayPolicy => ({
  methods: new Set(SAFE_METHODS),
  headers: new Map(),
  allowRedacted: false,
  ...spec,
})

const bytes = (text: string) => new Uint8Array(Buffer.from(text))
const none = new Uint8Array(0)

describe('planReplay', () => {
  test('sends GET, HEAD and OPTIONS by default, with path and query, the stored headers and the shadow marker', () => {
    const plan = planReplay(capture({ raw_query: 'a=1&b=2', headers: { Accept: ['application/json'], 'X-Multi': ['1', '2'] } }), none, policy())
    expect(plan).toEqual({
      kind: 'send',
      request: {
        method: 'GET',
        target: '/items/1?a=1&b=2',
        headers: [['Accept', 'application/json'], ['X-Multi', '1'], ['X-Multi', '2'], ['X-Svc-Mode', 'shadow']],
        body: undefined,
      },
    })
  })

  test('a capture whose live failed is skipped as live_failed: nothing to compare the candidate with', () => {
    const failed = { id: crypto.randomUUID(), status_code: 0, headers: {}, body: Buffer.from('live: timed out after 5s').toString('base64'), latency_ms: 5000, created_at: '2026-11-26T10:00:00Z' }
    expect(planReplay(capture({ live_response: failed }), none, policy())).toEqual({ kind: 'skip', reason: 'live_failed' })
    // A method not sent is told first, as a user who left it out expects.
    expect(planReplay(capture({ method: 'POST', live_response: failed }), none, policy())).toEqual({ kind: 'skip', reason: 'method' })
  })

  // [method, methods allowed, skipped]
  const methods: Array<[string, string[] | undefined, boolean]> = [
    ['GET', undefined, false],
    ['HEAD', undefined, false],
    ['OPTIONS', undefined, false],
    ['POST', undefined, true],
    ['PUT', undefined, true],
    ['DELETE', undefined, true],
    ['PATCH', undefined, true],
    ['TRACE', undefined, true],
    ['POST', ['GET', 'POST'], false],
    ['GET', ['POST'], true],
    ['get', undefined, false],
  ]
  test.each(methods)('%s with --method %p: skipped %p', (method, allowed, skipped) => {
    const plan = planReplay(capture({ method }), none, policy(allowed ? { methods: new Set(allowed) } : {}))
    expect(plan.kind === 'skip' ? plan.reason : 'send').toBe(skipped ? 'method' : 'send')
  })

  test('a redacted header or body value skips the request as redacted', () => {
    expect(planReplay(capture({ headers: { Authorization: ['[REDACTED]'] } }), none, policy())).toEqual({ kind: 'skip', reason: 'redacted' })
    const body = bytes('{"user":"a","password":"[REDACTED]"}')
    expect(planReplay(capture({ method: 'POST' }), body, policy({ methods: new Set(['POST']) }))).toEqual({ kind: 'skip', reason: 'redacted' })
    expect(planReplay(capture(), bytes('[REDACTED]'), policy())).toEqual({ kind: 'skip', reason: 'redacted' })
  })

  test('--header puts a credential back: the redacted value is replaced, not a reason to skip', () => {
    const headers = new Map([['authorization', { name: 'Authorization', value: 'Bearer token-1' }]])
    const plan = planReplay(capture({ headers: { authorization: ['[REDACTED]'], Accept: ['*/*'] } }), none, policy({ headers }))
    expect(plan).toEqual({
      kind: 'send',
      request: expect.objectContaining({ headers: [['Accept', '*/*'], ['Authorization', 'Bearer token-1'], ['X-Svc-Mode', 'shadow']] }),
    })
  })

  test('--allow-redacted sends it anyway, the redacted headers left out and the body as stored', () => {
    const body = bytes('{"password":"[REDACTED]"}')
    const plan = planReplay(
      capture({ method: 'POST', headers: { Cookie: ['[REDACTED]'], 'Content-Type': ['application/json'] } }),
      body,
      policy({ methods: new Set(['POST']), allowRedacted: true }),
    )
    expect(plan).toEqual({
      kind: 'send',
      request: { method: 'POST', target: '/items/1', headers: [['Content-Type', 'application/json'], ['X-Svc-Mode', 'shadow']], body },
    })
  })

  test('leaves out what belonged to the original connection, and a client X-Svc-Mode', () => {
    const plan = planReplay(
      capture({
        headers: {
          Host: ['live.internal'],
          'Content-Length': ['12'],
          Connection: ['keep-alive'],
          'Transfer-Encoding': ['chunked'],
          'X-Svc-Mode': ['live'],
          'Accept-Encoding': ['gzip'],
        },
      }),
      none,
      policy(),
    )
    expect(plan.kind === 'send' && plan.request.headers).toEqual([['Accept-Encoding', 'gzip'], ['X-Svc-Mode', 'shadow']])
  })

  test('a GET or HEAD body is not sent; an OPTIONS one is', () => {
    expect(planReplay(capture({ method: 'GET' }), bytes('x'), policy())).toMatchObject({ request: { body: undefined } })
    expect(planReplay(capture({ method: 'OPTIONS' }), bytes('x'), policy())).toMatchObject({ request: { body: bytes('x') } })
  })
})
