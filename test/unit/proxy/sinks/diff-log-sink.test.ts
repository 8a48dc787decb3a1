/**
 * The diff-log sink's two ways in for an error: a whole capture (`submit`)
 * and, while the shadow is known to be down, the statuses and the cause
 * alone (`shadowNotAttempted`, refused-shadow-forwarder.ts). Both must
 * count and log the same thing. And the endpoint and signature of its
 * records: the API's for the same capture (docs/insights.md "In logs").
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { DEFAULT_DIFF_CONFIG, failureCause, processCapture, type DiffConfig } from '../../../../src/diff/index.ts'
import { EndpointTemplates, errorSignature, signatureOf } from '../../../../src/insights/index.ts'
import { createLogger, rateLimited, type LogFormat } from '../../../../src/log/index.ts'
import { createComparisonMetrics, createNoiseCheckMetrics, Registry } from '../../../../src/metrics/index.ts'
import { createDiffLogSink, type Capture } from '../../../../src/proxy/index.ts'
import { sumSamples } from '../../../support/prometheus-text.ts'

const NOT_ATTEMPTED = 'shadow: connection refused (not attempted: the shadow refused a connection and has not answered since; one is tried at most every 1000 ms)'
const ID = '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40'
const createdAt = new Date('2026-11-21T00:00:00Z')
const encoder = new TextEncoder()

interface SinkSetup {
  readonly diff?: DiffConfig
  readonly redactedFields?: readonly string[]
  readonly endpoints?: readonly string[]
  readonly format?: LogFormat
  readonly warningIntervalMs?: number
}

function sinkWithRecords(setup: SinkSetup = {}) {
  const lines: string[] = []
  const logger = createLogger({
    level: 'info',
    format: setup.format ?? 'json',
    write: (line) => lines.push(line),
    now: () => createdAt,
  })
  const registry = new Registry()
  // By default every record is written: the tests compare them one by one.
  const warnings = rateLimited(logger, setup.warningIntervalMs ?? 0)
  const sink = createDiffLogSink({
    settings: {
      diff: setup.diff ?? DEFAULT_DIFF_CONFIG,
      redactedFields: setup.redactedFields ?? [],
      maxBodyBytes: 0,
      endpoints: setup.endpoints && EndpointTemplates.parse(setup.endpoints),
    },
    logger,
    warnings,
    comparisons: createComparisonMetrics(registry).forGate('checkout'),
  })
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  return { sink, lines, records, warnings, render: () => registry.render() }
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
        liveError,
        shadowError: NOT_ATTEMPTED,
        cause: failureCause(liveError, NOT_ATTEMPTED),
      }),
    ).toEqual({ kind: 'compared', result: 'error' })
    expect(bare.records()).toEqual(whole.records())
    expect(bare.records()).toHaveLength(1)
    const endpoint = { method: 'GET', template: '/orders/{id}' }
    expect(bare.records()[0]).toMatchObject({
      msg: 'comparison failed',
      'request.id': ID,
      endpoint: 'GET /orders/{id}',
      signature: errorSignature(endpoint, liveError === undefined ? null : 'refused', 'refused').id,
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
    sink.shadowNotAttempted!({ id: ID, clientRequestId: 'client-id-8', method: 'GET', path: '/orders/7', liveStatus: 200, shadowError: NOT_ATTEMPTED, cause: 'x' })
    sink.submit(capture(200, '{}'), new AbortController().signal)
    expect(records().map((r) => [r['request.id'], r['http.request.header.x-request-id']])).toEqual([
      [ID, 'client-id-7'],
      [ID, 'client-id-8'],
      [ID, undefined],
    ])
  })
})

function exchange(status: number, body: string, headers: Record<string, string[]> = JSON_HEADERS) {
  return { status, headers, body: encoder.encode(body), latencyMs: 1, createdAt }
}

const JSON_HEADERS = { 'Content-Type': ['application/json'] }

function jsonCapture(method: string, path: string, live: unknown, shadow: unknown): Capture {
  return {
    id: ID,
    method,
    path,
    rawQuery: '',
    createdAt,
    request: { headers: {}, body: new Uint8Array(0) },
    live: exchange(200, JSON.stringify(live)),
    shadow: exchange(200, JSON.stringify(shadow)),
  }
}

/**
 * The signature the API gives the same capture (src/api/capture-ingest.ts,
 * src/store/capture-insight.ts): processCapture with the gate's settings,
 * then signatureOf on the stored responses and diff.
 */
function apiSignature(capture: Capture, template: string, diff: DiffConfig, redactedFields: readonly string[]) {
  const processed = processCapture(
    { request: { headers: {}, body: new Uint8Array(0) }, live: capture.live, shadow: capture.shadow },
    { diff, redactedFields: [...redactedFields] },
  )
  const ops = processed.comparison.kind === 'diff' ? processed.comparison.ops : []
  return signatureOf(
    { method: capture.method.toUpperCase(), template },
    {
      live: { status: processed.live.status, body: processed.live.body },
      shadow: { status: processed.shadow.status, body: processed.shadow.body },
      ops,
    },
  )
}

describe('diff-log sink: the endpoint and signature of a diff', () => {
  const diff: DiffConfig = { ...DEFAULT_DIFF_CONFIG, ignored_fields: ['body.generated_at'] }
  const redactedFields = ['body.customer.email']
  const live = { price: 10, tax: 1, generated_at: 1, customer: { email: 'ann@live.example' }, items: [{ id: 1 }, { id: 2 }] }
  const shadow = { price: 11, tax: 1, generated_at: 2, customer: { email: 'bob@shadow.example' }, items: [{ id: 1 }, { id: 3 }], stock: 4 }

  test('explicit template first, else the automatic one; the signature is the API\'s for the same capture', () => {
    const { sink, records } = sinkWithRecords({ diff, redactedFields, endpoints: ['/v2/products/{sku}/price'] })
    const explicit = jsonCapture('GET', '/v2/products/sku-15028/price', live, shadow)
    const automatic = jsonCapture('GET', '/v2/orders/15028', live, shadow)
    sink.submit(explicit, new AbortController().signal)
    sink.submit(automatic, new AbortController().signal)
    const [first, second] = records()
    expect(first).toMatchObject({ msg: 'response diff detected', endpoint: 'GET /v2/products/{sku}/price' })
    expect(second).toMatchObject({ msg: 'response diff detected', endpoint: 'GET /v2/orders/{id}' })
    const expected = apiSignature(explicit, '/v2/products/{sku}/price', diff, redactedFields)!
    expect(expected.kind).toBe('diff')
    expect(first!.signature).toBe(expected.id)
    expect(second!.signature).toBe(apiSignature(automatic, '/v2/orders/{id}', diff, redactedFields)!.id)
    // Ignored and redacted fields are no part of it, as they are no part of the diff.
    expect(String(first!.diff)).not.toContain('generated_at')
    expect(String(first!.diff)).not.toContain('email')
  })

  test('the method counts upper-cased, as the API stores it', () => {
    const { sink, records } = sinkWithRecords()
    sink.submit(jsonCapture('purge', '/cache/15028', { a: 1 }, { a: 2 }), new AbortController().signal)
    expect(records()[0]).toMatchObject({ endpoint: 'PURGE /cache/{id}' })
    expect(records()[0]!.signature).toBe(apiSignature(jsonCapture('PURGE', '/cache/1', { a: 1 }, { a: 2 }), '/cache/{id}', DEFAULT_DIFF_CONFIG, [])!.id)
  })

  test('text format: endpoint="GET /v2/orders/{id}" signature=<16 hex>, beside request.path', () => {
    const { sink, lines } = sinkWithRecords({ format: 'text' })
    sink.submit(jsonCapture('GET', '/v2/orders/15028', live, shadow), new AbortController().signal)
    expect(lines[0]).toMatch(/ request\.path=\/v2\/orders\/15028 endpoint="GET \/v2\/orders\/\{id\}" signature=[0-9a-f]{16} live_status=200 /)
  })

  test('any two JSON bodies: the logged signature is the one the API computes', () => {
    const body = fc.dictionary(fc.constantFrom('a', 'b', 'sku-15028', '42', 'items'), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 })
    fc.assert(
      fc.property(body, body, fc.boolean(), (liveBody, shadowBody, sortArrays) => {
        const options = { ...DEFAULT_DIFF_CONFIG, sort_arrays: sortArrays }
        const { sink, records } = sinkWithRecords({ diff: options, redactedFields: ['body.b'] })
        const capture = jsonCapture('GET', '/items/15028', liveBody, shadowBody)
        sink.submit(capture, new AbortController().signal)
        const expected = apiSignature(capture, '/items/{id}', options, ['body.b'])
        expect(records()[0]?.signature).toBe(expected?.id)
      }),
      { numRuns: 200 },
    )
  })
})

describe('diff-log sink: a failed side', () => {
  test('comparison failed is rate-limited per kind of failure: a refused and a timed-out shadow are both logged', () => {
    const { sink, records } = sinkWithRecords({ warningIntervalMs: 60_000 })
    const failed = (text: string): Capture => ({ ...capture(200, '{}'), shadow: exchange(0, text, {}) })
    for (const text of ['shadow: connection refused', 'shadow: connection refused', 'shadow: timed out after 1s', 'shadow: timed out after 1s']) {
      sink.submit(failed(text), new AbortController().signal)
    }
    const endpoint = { method: 'GET', template: '/orders/{id}' }
    expect(records().map((r) => [r.msg, r.signature])).toEqual([
      ['comparison failed', errorSignature(endpoint, null, 'refused').id],
      ['comparison failed', errorSignature(endpoint, null, 'timeout').id],
    ])
  })

  test('a shadow not attempted: one line per kind of failure, the kinds alternating, live failing too', () => {
    const { sink, records } = sinkWithRecords({ warningIntervalMs: 60_000 })
    const refused = 'shadow: connection refused (not attempted)'
    const timedOut = 'shadow: timed out after 1s'
    const notAttempted = (shadowError: string, liveError?: string) => ({
      id: 'c0ffee00-0000-4000-8000-000000000000',
      method: 'GET',
      path: '/orders/15028',
      liveStatus: liveError === undefined ? 200 : 0,
      ...(liveError === undefined ? {} : { liveError }),
      shadowError,
      cause: 'shadow failed',
    })
    for (const text of [refused, timedOut, refused, timedOut, refused]) sink.shadowNotAttempted!(notAttempted(text))
    sink.shadowNotAttempted!(notAttempted(refused, 'live: timed out after 5s'))
    sink.shadowNotAttempted!(notAttempted(refused))
    const endpoint = { method: 'GET', template: '/orders/{id}' }
    expect(records().map((r) => [r.msg, r.signature])).toEqual([
      ['comparison failed', errorSignature(endpoint, null, 'refused').id],
      ['comparison failed', errorSignature(endpoint, null, 'timeout').id],
      ['comparison failed', errorSignature(endpoint, 'timeout', 'refused').id],
    ])
  })
})

describe('diff-log sink: a flood of failures', () => {
  test("the line held back of each kind is that kind's last request, its statuses and ids as they were", () => {
    const { sink, records, warnings } = sinkWithRecords({ warningIntervalMs: 60_000 })
    const refused = 'shadow: connection refused (not attempted)'
    // A not-attempted request's id is made when first read: only for a line that is written.
    const idsRead: number[] = []
    const notAttempted = (n: number, liveError?: string) => ({
      get id() {
        idsRead.push(n)
        return `c0ffee00-0000-4000-8000-00000000000${n}`
      },
      clientRequestId: `client-${n}`,
      method: 'GET',
      path: `/orders/${n}`,
      liveStatus: liveError === undefined ? 200 + n : 0,
      ...(liveError === undefined ? {} : { liveError }),
      shadowError: refused,
      cause: `cause ${n}`,
    })
    // Two kinds interleaved: live answering, and live timing out too.
    sink.shadowNotAttempted!(notAttempted(1))
    sink.shadowNotAttempted!(notAttempted(2, 'live: timed out after 5s'))
    sink.shadowNotAttempted!(notAttempted(3))
    sink.shadowNotAttempted!(notAttempted(4))
    sink.shadowNotAttempted!(notAttempted(5, 'live: timed out after 5s'))
    sink.shadowNotAttempted!(notAttempted(6, 'live: timed out after 5s'))
    // A failure from a full capture of the first kind, then one more not attempted: the second kind's held line keeps its own statuses.
    sink.submit({ ...capture(299, '{}', 'client-7'), shadow: exchange(0, refused, {}) }, new AbortController().signal)
    sink.shadowNotAttempted!(notAttempted(8))
    warnings.flush()
    const endpoint = { method: 'GET', template: '/orders/{id}' }
    const fields = (r: Record<string, unknown>) => [r['request.id'], r['http.request.header.x-request-id'], r['request.path'], r.live_status, r.shadow_status, r.cause, r.signature, r.suppressed]
    expect(records().map(fields)).toEqual([
      ['c0ffee00-0000-4000-8000-000000000001', 'client-1', '/orders/1', 201, 0, 'cause 1', errorSignature(endpoint, null, 'refused').id, undefined],
      ['c0ffee00-0000-4000-8000-000000000002', 'client-2', '/orders/2', 0, 0, 'cause 2', errorSignature(endpoint, 'timeout', 'refused').id, undefined],
      ['c0ffee00-0000-4000-8000-000000000008', 'client-8', '/orders/8', 208, 0, 'cause 8', errorSignature(endpoint, null, 'refused').id, 4],
      ['c0ffee00-0000-4000-8000-000000000006', 'client-6', '/orders/6', 0, 0, 'cause 6', errorSignature(endpoint, 'timeout', 'refused').id, 2],
    ])
    expect(idsRead).toEqual([1, 2, 8, 6])
  })
})

describe('diff-log sink: the noise check', () => {
  function noiseSink(diff: DiffConfig = DEFAULT_DIFF_CONFIG) {
    const lines: string[] = []
    const logger = createLogger({ level: 'info', format: 'json', write: (line) => lines.push(line), now: () => createdAt })
    const registry = new Registry()
    const sink = createDiffLogSink({
      settings: { diff, redactedFields: [], maxBodyBytes: 0 },
      logger,
      warnings: rateLimited(logger, 0),
      comparisons: createComparisonMetrics(registry).forGate(''),
      noise: createNoiseCheckMetrics(registry).forGate(''),
    })
    const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    const count = (result: string) => sumSamples(registry.render(), 'svc_noise_checks_total', { result })
    return { sink, records, count }
  }
  const exchange = (status: number, body: string) => ({ status, headers: {}, body: encoder.encode(body), latencyMs: 1, createdAt })
  const withSides = (live: string, shadow: string, repeat?: ReturnType<typeof exchange>): Capture => ({
    ...capture(200, live),
    shadow: exchange(200, shadow),
    ...(repeat === undefined ? {} : { liveRepeat: repeat }),
  })
  const signal = new AbortController().signal

  test('the repeat is compared with live under the same diff settings: noise is what differs, ignored fields are not', () => {
    const { sink, records, count } = noiseSink({ ...DEFAULT_DIFF_CONFIG, ignored_fields: ['body.at'] })
    sink.submit(withSides('{"id":"a","at":1,"n":1}', '{"id":"b","at":2,"n":2}', exchange(200, '{"id":"c","at":3,"n":1}')), signal)
    expect(records()[0]).toMatchObject({ diff: 'replace /body/id="b"; replace /body/n=2', noise: 'replace /body/id="c"' })
    expect([count('quiet'), count('noisy'), count('error')]).toEqual([0, 1, 0])
  })

  test('a repeat that matched gives an empty noise; one that failed gives none and counts as an error', () => {
    const { sink, records, count } = noiseSink()
    sink.submit(withSides('{"n":1}', '{"n":2}', exchange(200, '{"n":1}')), signal)
    sink.submit(withSides('{"n":1}', '{"n":2}', exchange(0, 'live: timed out after 5s')), signal)
    sink.submit(withSides('{"n":1}', '{"n":2}'), signal)
    const [quiet, failed, none] = records()
    expect(quiet!.noise).toBe('')
    expect(failed).not.toHaveProperty('noise')
    expect(none).not.toHaveProperty('noise')
    expect([count('quiet'), count('noisy'), count('error')]).toEqual([1, 0, 1])
  })

  test('a match with the shadow logs nothing, noisy or not; the check is counted', () => {
    const { sink, records, count } = noiseSink()
    expect(sink.submit(withSides('{"n":1}', '{"n":1}', exchange(200, '{"n":9}')), signal)).toEqual({ kind: 'compared', result: 'match' })
    expect(records()).toHaveLength(0)
    expect(count('noisy')).toBe(1)
  })
})
