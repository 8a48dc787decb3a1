/**
 * The diff-log sink's two ways in for an error: a whole capture (`submit`)
 * and, while the shadow is known to be down, the statuses and the cause
 * alone (`shadowNotAttempted`, refused-shadow-forwarder.ts). Both must
 * count and log the same thing.
 */
import { describe, expect, test } from 'bun:test'
import { DEFAULT_DIFF_CONFIG, failureCause } from '../../../src/diff/index.ts'
import { createLogger, rateLimited } from '../../../src/log/index.ts'
import { createComparisonMetrics, Registry } from '../../../src/metrics/index.ts'
import { createDiffLogSink, type Capture } from '../../../src/proxy/index.ts'

const NOT_ATTEMPTED = 'shadow: connection refused (not attempted: refused within the last 1000 ms)'
const ID = '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40'
const createdAt = new Date('2026-11-21T00:00:00Z')
const encoder = new TextEncoder()

function sinkWithRecords() {
  const lines: string[] = []
  const logger = createLogger({
    level: 'info',
    format: 'json',
    write: (line) => lines.push(line),
    now: () => createdAt,
  })
  const registry = new Registry()
  const sink = createDiffLogSink({
    settings: { diff: DEFAULT_DIFF_CONFIG, redactedFields: [], maxBodyBytes: 0 },
    logger,
    // Every record is written: the test compares them one by one.
    warnings: rateLimited(logger, 0),
    comparisons: createComparisonMetrics(registry).forGate('checkout'),
  })
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  return { sink, records, render: () => registry.render() }
}

function capture(liveStatus: number, liveBody: string, clientRequestId?: string): Capture {
  return {
    id: ID,
    clientRequestId,
    method: 'GET',
    path: '/orders/7',
    rawQuery: 'page=2',
    createdAt,
    request: { headers: {}, body: new Uint8Array(0) },
    live: {
      status: liveStatus,
      headers: {},
      body: encoder.encode(liveBody),
      latencyMs: 3,
      createdAt,
    },
    shadow: {
      status: 0,
      headers: {},
      body: encoder.encode(NOT_ATTEMPTED),
      latencyMs: 0,
      createdAt,
    },
  }
}

describe('diff-log sink: an error with the shadow not attempted', () => {
  test.each([
    ['live answered', 200, '{"ok":true}', undefined],
    ['live failed too', 0, 'live: connection refused', 'live: connection refused'],
  ])('%s: the same record and count as a whole capture', (_, liveStatus, liveBody, liveError) => {
    const whole = sinkWithRecords()
    const bare = sinkWithRecords()
    expect(whole.sink.submit(capture(liveStatus, liveBody), new AbortController().signal)).toEqual({
      kind: 'compared',
      result: 'error',
    })
    expect(
      bare.sink.shadowNotAttempted!({
        id: ID,
        method: 'GET',
        path: '/orders/7',
        liveStatus,
        cause: failureCause(liveError, NOT_ATTEMPTED),
      }),
    ).toEqual({ kind: 'compared', result: 'error' })
    expect(bare.records()).toEqual(whole.records())
    expect(bare.records()).toHaveLength(1)
    expect(bare.records()[0]).toMatchObject({
      msg: 'comparison failed',
      'request.id': ID,
      shadow_status: 0,
    })
    expect(bare.render()).toBe(whole.render())
    expect(bare.render()).toContain(
      'svc_responses_compared_total{gate="checkout",result="error"} 1',
    )
  })
})

describe('diff-log sink: the client\'s X-Request-ID beside the capture\'s id', () => {
  test('logged as http.request.header.x-request-id when the client sent one, absent otherwise', () => {
    const { sink, records } = sinkWithRecords()
    sink.submit(capture(200, '{}', 'client-id-7'), new AbortController().signal)
    sink.shadowNotAttempted!({ id: ID, clientRequestId: 'client-id-8', method: 'GET', path: '/orders/7', liveStatus: 200, cause: 'x' })
    sink.submit(capture(200, '{}'), new AbortController().signal)
    expect(records().map((r) => [r['request.id'], r['http.request.header.x-request-id']])).toEqual([
      [ID, 'client-id-7'],
      [ID, 'client-id-8'],
      [ID, undefined],
    ])
  })
})
