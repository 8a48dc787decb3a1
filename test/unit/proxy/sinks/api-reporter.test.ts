import { describe, expect, test } from 'bun:test'
import { Redaction } from '../../../../src/diff/index.ts'
import { createRequestPayload } from '../../../../src/proxy/sinks/api-reporter.ts'
import type { Capture } from '../../../../src/proxy/sinks/capture-sink.ts'

const at = new Date('2026-11-21T10:00:00.000Z')
const text = (s: string) => new TextEncoder().encode(s)

const capture: Capture = {
  id: '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40',
  method: 'GET',
  path: '/api/items',
  rawQuery: 'page=2',
  createdAt: at,
  request: { headers: { Authorization: ['Bearer user-token'], Accept: ['*/*'] }, body: new Uint8Array(0) },
  live: { status: 200, headers: { 'Content-Type': ['application/json'] }, body: text('{"a":1}'), latencyMs: 12.4, createdAt: at },
  shadow: { status: 0, headers: {}, body: text('shadow: connection refused'), latencyMs: 1.6, createdAt: at },
}

describe('createRequestPayload (the createRequest body)', () => {
  test('base64 bodies, RFC 3339 times, integer latencies, no diff', () => {
    const payload = createRequestPayload(capture)
    expect(payload).toEqual({
      id: capture.id,
      method: 'GET',
      path: '/api/items',
      raw_query: 'page=2',
      headers: capture.request.headers,
      body: '',
      created_at: '2026-11-21T10:00:00.000Z',
      live_response: {
        status_code: 200,
        headers: { 'Content-Type': ['application/json'] },
        body: Buffer.from('{"a":1}').toString('base64'),
        latency_ms: 12,
        created_at: '2026-11-21T10:00:00.000Z',
      },
      shadow_response: {
        status_code: 0,
        headers: {},
        body: Buffer.from('shadow: connection refused').toString('base64'),
        latency_ms: 2,
        created_at: '2026-11-21T10:00:00.000Z',
      },
    })
    expect('diff' in payload).toBe(false)
  })

  test('omits raw_query when empty', () => {
    expect('raw_query' in createRequestPayload({ ...capture, rawQuery: '' })).toBe(false)
  })

  test('redacts headers before they leave the proxy', () => {
    const redaction = new Redaction([])
    const payload = createRequestPayload(capture, (headers) => redaction.headers(headers))
    expect(payload.headers).toEqual({ Authorization: ['[REDACTED]'], Accept: ['*/*'] })
  })

  test('a body that is a view into a larger buffer is encoded alone', () => {
    const buffer = text('xxHELLOxx')
    const payload = createRequestPayload({ ...capture, request: { headers: {}, body: buffer.subarray(2, 7) } })
    expect(Buffer.from(payload.body, 'base64').toString()).toBe('HELLO')
  })
})

describe('createRequestPayload: the noise check', () => {
  test('a capture with a repeat carries it as live_repeat_response, a ResponsePayload redacted like the others', () => {
    const redaction = new Redaction([])
    const liveRepeat = {
      status: 200,
      headers: { 'Set-Cookie': ['sid=secret'] },
      body: text('{"a":2}'),
      latencyMs: 7.6,
      createdAt: new Date('2026-11-21T10:00:01.000Z'),
    }
    const payload = createRequestPayload({ ...capture, liveRepeat }, (headers) => redaction.headers(headers))
    expect(payload.live_repeat_response).toEqual({
      status_code: 200,
      headers: { 'Set-Cookie': ['[REDACTED]'] },
      body: Buffer.from('{"a":2}').toString('base64'),
      latency_ms: 8,
      created_at: '2026-11-21T10:00:01.000Z',
    })
  })

  test('a capture without a repeat has no live_repeat_response at all', () => {
    expect('live_repeat_response' in createRequestPayload(capture)).toBe(false)
  })
})
