/**
 * One table of shadowing behaviours, run against every way the core is
 * put in front of live: the standalone proxy
 * (test/integration/proxy/shared-cases.test.ts) and the svc_gate module in
 * an Elysia and a Bun.serve host, configured by object and by block text
 * (test/integration/module/shared-cases.test.ts). The module shares
 * the proxy's core (docs/proxy.md "Reusing the core"), so both must pass the
 * same table.
 *
 * Every path a case uses is under `/api/`: the module is mounted on `/api`
 * and forwards paths unchanged, so live and shadow see the same paths
 * whichever target forwarded them, and the rule `allow POST:/api/search`
 * reads the same for both.
 */
import { expect, test } from 'bun:test'
import { EndpointTemplates, endpointOf, errorSignature, signatureOf } from '../../src/insights/index.ts'
import { SKIP_REASONS, type SkipReason } from '../../src/metrics/index.ts'
import {
  GZIP_BYTES,
  json,
  JSON_TEXT,
  refusedUrl,
  useUpstreamPair,
  waitFor,
  type TestUpstream,
} from './upstreams.ts'
import { sumSamples } from './prometheus-text.ts'
import { readTimed } from './timed-read.ts'

/**
 * The settings a case may change, named as the module's object form (the
 * proxy's SVC_APP_* variable is the same name in upper snake case).
 * Anything not given is the target's default.
 */
export interface CaseConfig {
  readonly samplingRate?: number
  readonly liveTimeout?: string
  readonly shadowTimeout?: string
  readonly maxBodySize?: number
  readonly shadowRules?: string
  readonly maxConcurrentCallbacks?: number
  readonly diffIgnoredFields?: readonly string[]
  readonly diffFloatTolerance?: number
  readonly diffSortArrays?: boolean
  readonly redactedFields?: readonly string[]
  readonly trustedProxies?: readonly string[]
  readonly endpoints?: readonly string[]
  readonly noiseSampleRate?: number
  readonly noiseMaxPerSecond?: number
}

export interface TargetConfig extends CaseConfig {
  readonly live: string
  readonly shadow: string
}

export interface LogRecord {
  readonly msg: string
  readonly level: string
  readonly [key: string]: unknown
}

/** The proxy or a host with the module, started for one case. */
export interface ShadowTarget {
  /** Where clients send the cases' `/api/...` paths. */
  readonly url: string
  /** Every record logged so far (JSON format, debug level). */
  records(): LogRecord[]
  /** The target's metrics, Prometheus text. */
  metricsText(): Promise<string>
  /** Background comparisons in flight. */
  readonly inFlight: number
  /** The module's `close()`, the proxy's graceful stop: drains the comparisons in flight. */
  close(): Promise<void>
  /** Stops what the target started; also after `close()`. */
  stop(): Promise<void>
}

export type StartTarget = (config: TargetConfig) => Promise<ShadowTarget>

export interface Accounting {
  readonly received: number
  readonly compared: number
  readonly skipped: Readonly<Record<SkipReason, number>>
  readonly skippedTotal: number
}

/** What a case works with. */
export class CaseContext {
  constructor(
    readonly target: ShadowTarget,
    readonly live: TestUpstream,
    readonly shadow: TestUpstream,
  ) {}

  /** A request to the target; `path` starts with `/api/`. */
  request(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(this.target.url + path, init)
  }

  /** Sum of every sample of `name` whose labels include `labels`. */
  async metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    return sumSamples(await this.target.metricsText(), name, labels)
  }

  async accounting(): Promise<Accounting> {
    const text = await this.target.metricsText()
    const skipped = {} as Record<SkipReason, number>
    for (const reason of SKIP_REASONS)
      skipped[reason] = sumSamples(text, 'svc_comparisons_skipped_total', { reason })
    return {
      received: sumSamples(text, 'http_server_request_duration_seconds_count'),
      compared: sumSamples(text, 'svc_responses_compared_total'),
      skipped,
      skippedTotal: Object.values(skipped).reduce((a, b) => a + b, 0),
    }
  }

  /** Waits until no comparison runs and every request received is compared or skipped. */
  settled(timeoutMs = 10_000): Promise<Accounting> {
    return waitFor(
      async () => {
        if (this.target.inFlight > 0) return undefined
        const counts = await this.accounting()
        return counts.compared + counts.skippedTotal === counts.received ? counts : undefined
      },
      timeoutMs,
      'every request to be accounted for',
    )
  }

  waitForRecord(msg: string, timeoutMs = 5000): Promise<LogRecord> {
    return waitFor(
      () => this.target.records().find((r) => r.msg === msg),
      timeoutMs,
      `log record "${msg}"`,
    )
  }
}

export interface ShadowCase {
  readonly name: string
  readonly config?: CaseConfig
  /** The shadow is a port where nothing listens. */
  readonly shadowDown?: boolean
  run(context: CaseContext): Promise<void>
}

const REQUEST_ID = '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40'

/**
 * The `(op, path)` pairs of a logged `diff` attribute (format-patch.ts:
 * `replace /body/a=1; add /body/b="x"; remove /body/c`), for paths without
 * `=` and values without `; `.
 */
function opsOfLoggedDiff(text: string): { op: 'add' | 'remove' | 'replace'; path: string }[] {
  return text.split('; ').map((part) => {
    const space = part.indexOf(' ')
    const op = part.slice(0, space) as 'add' | 'remove' | 'replace'
    const rest = part.slice(space + 1)
    return { op, path: op === 'remove' ? rest : rest.slice(0, rest.indexOf('=')) }
  })
}

/** A handler that answers after `ms`. */
function after(ms: number, answer: () => Response): () => Promise<Response> {
  return async () => {
    await Bun.sleep(ms)
    return answer()
  }
}

async function drained(response: Response): Promise<Response> {
  await response.arrayBuffer()
  return response
}

export const SHADOW_CASES: readonly ShadowCase[] = [
  {
    name: 'returns live’s status, headers and body untouched, without hop-by-hop headers',
    async run(c) {
      c.live.route('/api/teapot', () =>
        json(
          { brewed: false },
          {
            status: 418,
            headers: {
              'x-live': 'yes',
              'cache-control': 'no-store',
              connection: 'x-private',
              'x-private': '1',
            },
          },
        ),
      )
      c.shadow.route('/api/teapot', () => json({ brewed: true }, { status: 200 }))
      const response = await c.request('/api/teapot')
      expect(response.status).toBe(418)
      expect(response.headers.get('x-live')).toBe('yes')
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(response.headers.get('content-type')).toBe('application/json')
      expect(response.headers.get('x-private')).toBeNull()
      expect(await response.json()).toEqual({ brewed: false })
    },
  },
  {
    name: 'keeps a gzip body compressed, byte for byte, and compares it decoded',
    async run(c) {
      const gzip = () =>
        new Response(GZIP_BYTES, {
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        })
      c.live.route('/api/gzip', gzip)
      c.shadow.route('/api/gzip', gzip)
      const response = await c.request('/api/gzip', { decompress: false } as RequestInit)
      expect(response.headers.get('content-encoding')).toBe('gzip')
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(GZIP_BYTES)
      await c.settled()
      expect(await c.metric('svc_responses_compared_total', { gate: '', result: 'match' })).toBe(1)
    },
  },
  {
    name: 'streams live’s body: the first chunk arrives before live has finished',
    async run(c) {
      const chunked = () => {
        let i = 0
        const encoder = new TextEncoder()
        return new Response(
          new ReadableStream({
            async pull(controller) {
              if (i > 0) await Bun.sleep(250)
              if (i >= 3) return controller.close()
              controller.enqueue(encoder.encode(`chunk ${i++}\n`))
            },
          }),
          { headers: { 'content-type': 'text/plain' } },
        )
      }
      c.live.route('/api/chunked', chunked)
      c.shadow.route('/api/chunked', chunked)
      const started = performance.now()
      const { text, firstAt, endAt } = await readTimed(await c.request('/api/chunked'), started)
      expect(text).toBe('chunk 0\nchunk 1\nchunk 2\n')
      // Live takes ~750 ms in all; the first chunk must not wait for the rest.
      expect(endAt - firstAt).toBeGreaterThan(350)
    },
  },
  {
    name: 'a slow shadow does not delay the client',
    config: { shadowTimeout: '5s' },
    async run(c) {
      c.shadow.route(
        '/api/json',
        after(1500, () => new Response(JSON_TEXT)),
      )
      const started = performance.now()
      const response = await c.request('/api/json')
      expect(response.status).toBe(200)
      await response.text()
      expect(performance.now() - started).toBeLessThan(700)
      await c.settled()
    },
  },
  {
    name: 'sends X-Svc-Mode: shadow to the shadow only, X-Forwarded-* to both, at the same time',
    async run(c) {
      c.live.route(
        '/api/together',
        after(300, () => new Response('live')),
      )
      await drained(
        await c.request('/api/together', { headers: { 'x-forwarded-for': '203.0.113.9' } }),
      )
      const [toLive] = await c.live.waitForRequests(1)
      const [toShadow] = await c.shadow.waitForRequests(1)
      expect(toLive!.headers.get('x-svc-mode')).toBeNull()
      expect(toShadow!.headers.get('x-svc-mode')).toBe('shadow')
      for (const received of [toLive!, toShadow!]) {
        expect(received.target).toBe('/api/together')
        expect(received.headers.get('x-forwarded-for')).toBe('203.0.113.9, 127.0.0.1')
        expect(received.headers.get('x-forwarded-host')).toBe(new URL(c.target.url).host)
        expect(received.headers.get('x-forwarded-proto')).toBe('http')
      }
      expect(Math.abs(toShadow!.receivedAt - toLive!.receivedAt)).toBeLessThan(200)
      await c.settled()
    },
  },
  {
    name: 'a client’s X-Svc-Mode, X-Forwarded-Host and -Proto never reach live; the shadow gets exactly X-Svc-Mode: shadow',
    async run(c) {
      await drained(
        await c.request('/api/spoof', {
          headers: [
            ['x-svc-mode', 'shadow'],
            ['x-svc-mode', 'replay'],
            ['x-forwarded-host', 'evil.example'],
            ['x-forwarded-proto', 'https'],
            ['x-forwarded-for', '203.0.113.9'],
          ],
        }),
      )
      const [toLive] = await c.live.waitForRequests(1)
      const [toShadow] = await c.shadow.waitForRequests(1)
      expect(toLive!.headers.has('x-svc-mode')).toBe(false)
      expect(toShadow!.headers.get('x-svc-mode')).toBe('shadow')
      for (const received of [toLive!, toShadow!]) {
        // Not a trusted proxy: what the target saw, not what the client claimed.
        expect(received.headers.get('x-forwarded-host')).toBe(new URL(c.target.url).host)
        expect(received.headers.get('x-forwarded-proto')).toBe('http')
        // Appended to, as always: the right-most entry is the peer the target saw.
        expect(received.headers.get('x-forwarded-for')).toBe('203.0.113.9, 127.0.0.1')
      }
      await c.settled()
    },
  },
  {
    name: 'from a trusted proxy, X-Forwarded-Host and -Proto are passed on; X-Svc-Mode still never reaches live',
    config: { trustedProxies: ['127.0.0.0/8', '::1'] },
    async run(c) {
      await drained(
        await c.request('/api/behind-balancer', {
          headers: {
            'x-svc-mode': 'shadow',
            'x-forwarded-host': 'shop.example',
            'x-forwarded-proto': 'https',
            'x-forwarded-for': '203.0.113.9',
          },
        }),
      )
      const [toLive] = await c.live.waitForRequests(1)
      const [toShadow] = await c.shadow.waitForRequests(1)
      expect(toLive!.headers.has('x-svc-mode')).toBe(false)
      expect(toShadow!.headers.get('x-svc-mode')).toBe('shadow')
      for (const received of [toLive!, toShadow!]) {
        expect(received.headers.get('x-forwarded-host')).toBe('shop.example')
        expect(received.headers.get('x-forwarded-proto')).toBe('https')
        expect(received.headers.get('x-forwarded-for')).toBe('203.0.113.9, 127.0.0.1')
      }
      await c.settled()
    },
  },
  {
    name: 'base rules: POST, PUT, DELETE and PATCH go to live only; GET, HEAD and OPTIONS are shadowed',
    async run(c) {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const response = await drained(await c.request('/api/items', { method, body: '{}' }))
        expect(response.status).toBe(200)
      }
      for (const method of ['GET', 'HEAD', 'OPTIONS'])
        await drained(await c.request('/api/items', { method }))
      const counts = await c.settled()
      expect(c.live.requests.map((r) => r.method)).toEqual([
        'POST',
        'PUT',
        'DELETE',
        'PATCH',
        'GET',
        'HEAD',
        'OPTIONS',
      ])
      expect(counts.skipped.denied_by_rule).toBe(4)
      expect(counts.compared).toBe(3)
      expect(c.shadow.requests.map((r) => r.method).sort()).toEqual(['GET', 'HEAD', 'OPTIONS'])
    },
  },
  {
    name: 'base rules: MOVE, PURGE, LOCK, PROPPATCH, TRACE and other methods go to live only',
    async run(c) {
      const methods = ['MOVE', 'PURGE', 'LOCK', 'PROPPATCH', 'TRACE', 'MKCOL', 'COPY']
      for (const method of methods) {
        const response = await drained(await c.request('/api/resource', { method }))
        expect(response.status).toBe(200)
      }
      await drained(await c.request('/api/resource'))
      const counts = await c.settled()
      expect(c.live.requests.map((r) => r.method)).toEqual([...methods, 'GET'])
      expect(counts.skipped.denied_by_rule).toBe(methods.length)
      expect(c.shadow.requests.map((r) => r.method)).toEqual(['GET'])
    },
  },
  {
    name: 'user rules allow other methods by name; allow *:path allows every method but TRACE',
    config: { shadowRules: 'allow PURGE:/api/cache/*, allow *:/api/any, allow TRACE:/api/trace' },
    async run(c) {
      const sent: [method: string, path: string][] = [
        ['PURGE', '/api/cache/img.png'],
        ['PURGE', '/api/other'],
        ['MOVE', '/api/any'],
        ['TRACE', '/api/any'],
        ['TRACE', '/api/trace'],
      ]
      for (const [method, path] of sent) await drained(await c.request(path, { method }))
      const counts = await c.settled()
      expect(c.live.requests).toHaveLength(sent.length)
      expect(counts.skipped.denied_by_rule).toBe(2)
      expect(c.shadow.requests.map((r) => `${r.method} ${r.target}`).sort()).toEqual([
        'MOVE /api/any',
        'PURGE /api/cache/img.png',
        'TRACE /api/trace',
      ])
    },
  },
  {
    name: 'a user rule allows POST:/api/search and denies GET:/api/admin/*; first match wins, case-insensitive',
    config: { shadowRules: 'allow POST:/api/search, deny GET:/api/admin/*' },
    async run(c) {
      const body = JSON.stringify({ query: 'shoes', page: 2 })
      await drained(
        await c.request('/api/search', {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        }),
      )
      await drained(await c.request('/api/admin/users'))
      await drained(await c.request('/api/ADMIN/users'))
      await drained(await c.request('/api/orders', { method: 'POST', body: '{}' }))
      const counts = await c.settled()
      expect(counts.skipped.denied_by_rule).toBe(3)
      expect(c.shadow.requests.map((r) => `${r.method} ${r.target}`)).toEqual(['POST /api/search'])
      expect(new TextDecoder().decode(c.shadow.requests[0]!.body)).toBe(body)
      expect(new TextDecoder().decode(c.live.requests[0]!.body)).toBe(body)
    },
  },
  {
    name: 'logs "response diff detected" with its own request.id, the client\'s X-Request-ID, method, path, both statuses and the diff; gate=""',
    async run(c) {
      c.live.route('/api/whoami', () => json({ name: 'live' }))
      c.shadow.route('/api/whoami', () => json({ name: 'candidate' }))
      const response = await c.request('/api/whoami?verbose=1', {
        headers: { 'x-request-id': REQUEST_ID },
      })
      expect(await response.json()).toEqual({ name: 'live' })
      const record = await c.waitForRecord('response diff detected')
      expect(record).toMatchObject({
        level: 'INFO',
        'http.request.header.x-request-id': REQUEST_ID,
        'request.method': 'GET',
        'request.path': '/api/whoami',
        live_status: 200,
        shadow_status: 200,
        diff: 'replace /body/name="candidate"',
      })
      // The capture's id is the proxy's own (a client may reuse its ids); both upstreams got the client's.
      expect(record['request.id']).not.toBe(REQUEST_ID)
      expect(record['request.id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(c.live.requests[0]!.headers.get('x-request-id')).toBe(REQUEST_ID)
      expect(c.shadow.requests[0]!.headers.get('x-request-id')).toBe(REQUEST_ID)
      await c.settled()
      expect(await c.metric('svc_responses_compared_total', { gate: '', result: 'diff' })).toBe(1)
      expect(await c.metric('svc_diff_operations_count', { gate: '' })).toBe(1)
      expect(
        await c.metric('http_server_request_duration_seconds_count', {
          http_request_method: 'GET',
        }),
      ).toBe(1)
      expect(
        await c.metric('http_client_request_duration_seconds_count', { svc_target: 'shadow' }),
      ).toBe(1)
      expect(
        await c.metric('http_client_request_duration_seconds_count', { svc_target: 'live' }),
      ).toBe(1)
    },
  },
  {
    name: 'the diff record names its endpoint (explicit template first, else automatic) and its signature, computed as the API does from the logged diff',
    config: { endpoints: ['/api/products/{sku}/price'] },
    async run(c) {
      c.live.route('/api/products/sku-15028/price', () => json({ price: 10, items: [{ id: 1 }, { id: 2 }] }))
      c.shadow.route('/api/products/sku-15028/price', () => json({ price: 11, items: [{ id: 1 }, { id: 3 }] }))
      c.live.route('/api/orders/15028', () => json({ total: 5 }))
      c.shadow.route('/api/orders/15028', () => json({ total: 6, currency: 'EUR' }))
      await drained(await c.request('/api/products/sku-15028/price?currency=EUR'))
      await drained(await c.request('/api/orders/15028'))
      await c.settled()
      const records = c.target.records().filter((r) => r.msg === 'response diff detected')
      expect(records).toHaveLength(2)
      const templates = EndpointTemplates.parse(['/api/products/{sku}/price'])
      const expected = new Map([
        ['/api/products/sku-15028/price', 'GET /api/products/{sku}/price'],
        ['/api/orders/15028', 'GET /api/orders/{id}'],
      ])
      for (const record of records) {
        const path = String(record['request.path'])
        expect(record.endpoint).toBe(expected.get(path))
        const endpoint = endpointOf('GET', path, templates)
        expect(`${endpoint.method} ${endpoint.template}`).toBe(String(record.endpoint))
        const ops = opsOfLoggedDiff(String(record.diff))
        expect(ops.length).toBeGreaterThan(0)
        const signature = signatureOf(endpoint, {
          live: { status: Number(record.live_status), body: '' },
          shadow: { status: Number(record.shadow_status), body: '' },
          ops,
        })
        expect(record.signature).toBe(signature!.id)
      }
      expect(records[0]!.signature).not.toBe(records[1]!.signature)
    },
  },
  {
    name: 'a match is counted with gate="" and logs nothing',
    async run(c) {
      await drained(await c.request('/api/products'))
      await c.settled()
      expect(await c.metric('svc_responses_compared_total', { gate: '', result: 'match' })).toBe(1)
      expect(c.target.records().some((r) => r.msg === 'response diff detected')).toBe(false)
    },
  },
  {
    name: 'diff options: ignored fields, float tolerance and sorted arrays make a match',
    config: {
      diffIgnoredFields: ['body.generated_at'],
      diffFloatTolerance: 0.01,
      diffSortArrays: true,
    },
    async run(c) {
      c.live.route('/api/price', () => json({ price: 10, tags: ['a', 'b', 'c'], generated_at: 1 }))
      c.shadow.route('/api/price', () =>
        json({ price: 10.005, tags: ['c', 'a', 'b'], generated_at: 2 }),
      )
      await drained(await c.request('/api/price'))
      await c.settled()
      expect(await c.metric('svc_responses_compared_total', { gate: '', result: 'match' })).toBe(1)
    },
  },
  {
    name: 'redaction: the default and the configured fields never differ and never reach the log',
    config: { redactedFields: ['body.user.email'] },
    async run(c) {
      c.live.route('/api/me', () =>
        json(
          { user: { email: 'ann@live.example', name: 'Ann' } },
          { headers: { 'set-cookie': 'sid=live-secret' } },
        ),
      )
      c.shadow.route('/api/me', () =>
        json(
          { user: { email: 'bob@shadow.example', name: 'Bob' } },
          { headers: { 'set-cookie': 'sid=shadow-secret' } },
        ),
      )
      await drained(await c.request('/api/me'))
      const record = await c.waitForRecord('response diff detected')
      expect(record.diff).toBe('replace /body/user/name="Bob"')
      const logged = JSON.stringify(c.target.records())
      for (const secret of ['ann@live', 'bob@shadow', 'live-secret', 'shadow-secret'])
        expect(logged).not.toContain(secret)
    },
  },
  {
    name: 'sampling rate 0 shadows nothing (sampled_out)',
    config: { samplingRate: 0 },
    async run(c) {
      for (let i = 0; i < 5; i++)
        expect((await drained(await c.request('/api/json'))).status).toBe(200)
      const counts = await c.settled()
      expect(counts.skipped.sampled_out).toBe(5)
      expect(c.shadow.requests).toHaveLength(0)
      expect(c.live.requests).toHaveLength(5)
    },
  },
  {
    name: 'max body size: a larger request is not shadowed, a larger response not compared; live gets and gives all',
    config: { maxBodySize: 1000, shadowRules: 'allow POST:/api/upload' },
    async run(c) {
      c.live.route('/api/upload', (_request, body) => json({ received: body.byteLength }))
      const upload = await c.request('/api/upload', {
        method: 'POST',
        body: new Uint8Array(5000).fill(97),
      })
      expect(await upload.json()).toEqual({ received: 5000 })
      const large = () => new Response(new Uint8Array(5000).fill(98))
      c.live.route('/api/large', large)
      c.shadow.route('/api/large', large)
      expect((await (await c.request('/api/large')).arrayBuffer()).byteLength).toBe(5000)
      const counts = await c.settled()
      expect(counts.skipped.body_too_large).toBe(2)
      expect(counts.compared).toBe(0)
      expect(c.shadow.requests.map((r) => r.target)).toEqual(['/api/large'])
    },
  },
  {
    name: 'max concurrent callbacks: when they are busy, comparisons are dropped with one warning; live is fine',
    config: { maxConcurrentCallbacks: 2, shadowTimeout: '5s' },
    async run(c) {
      let release!: () => void
      const gate = new Promise<void>((resolve) => {
        release = resolve
      })
      c.shadow.route('/api/json', async () => {
        await gate
        return new Response(JSON_TEXT)
      })
      const statuses: number[] = []
      for (let i = 0; i < 6; i++)
        statuses.push((await drained(await c.request('/api/json'))).status)
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200])
      expect(c.target.inFlight).toBe(2)
      release()
      const counts = await c.settled()
      expect(counts.skipped.callbacks_full).toBe(4)
      expect(counts.compared).toBe(2)
      const warnings = c.target.records().filter((r) => r.msg.startsWith('comparison dropped'))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]!.level).toBe('WARN')
    },
  },
  {
    name: 'live slower than the live timeout: 504 Problem, in time',
    config: { liveTimeout: '300ms' },
    async run(c) {
      c.live.route(
        '/api/slow',
        after(2000, () => new Response('late')),
      )
      const started = performance.now()
      const response = await c.request('/api/slow')
      expect(response.status).toBe(504)
      expect(response.headers.get('content-type')).toBe('application/problem+json')
      expect(await response.json()).toMatchObject({ type: '/errors/gateway-timeout', status: 504 })
      expect(performance.now() - started).toBeLessThan(1500)
    },
  },
  {
    name: 'a shadow that is down is a comparison error with shadow status 0; live is unaffected',
    shadowDown: true,
    async run(c) {
      const response = await c.request('/api/json')
      expect(response.status).toBe(200)
      expect(await response.text()).toBe(JSON.stringify({ path: '/api/json' }))
      const record = await c.waitForRecord('comparison failed')
      expect(record).toMatchObject({
        shadow_status: 0,
        live_status: 200,
        'request.path': '/api/json',
        endpoint: 'GET /api/json',
        signature: errorSignature({ method: 'GET', template: '/api/json' }, null, 'refused').id,
      })
      expect(String(record.cause)).toContain('connection refused')
      await c.settled()
      expect(await c.metric('svc_responses_compared_total', { gate: '', result: 'error' })).toBe(1)
    },
  },
  {
    name: 'close() drains the comparisons in flight',
    config: { shadowTimeout: '5s' },
    async run(c) {
      c.shadow.route(
        '/api/json',
        after(400, () => json({ changed: true })),
      )
      await drained(await c.request('/api/json'))
      await c.shadow.waitForRequests(1)
      expect(c.target.inFlight).toBe(1)
      await c.target.close()
      expect(c.target.inFlight).toBe(0)
      expect(await c.metric('svc_responses_compared_total', { gate: '', result: 'diff' })).toBe(1)
      expect(await c.metric('svc_comparisons_skipped_total', { reason: 'report_failed' })).toBe(0)
      expect(c.target.records().some((r) => r.msg === 'response diff detected')).toBe(true)
    },
  },
  {
    name: 'nothing is lost silently: compared + skipped = received over a mixed load',
    config: { samplingRate: 0.7, maxBodySize: 2000, maxConcurrentCallbacks: 8 },
    async run(c) {
      c.live.route('/api/large', () => new Response(new Uint8Array(4000)))
      const paths = ['/api/json', '/api/json', '/api/large', '/api/missing', '/api/echo']
      const requests: Promise<unknown>[] = []
      for (let i = 0; i < 60; i++) {
        const init = i % 7 === 0 ? { method: 'POST', body: 'x' } : {}
        requests.push(c.request(paths[i % paths.length]!, init).then(drained))
      }
      await Promise.all(requests)
      const counts = await c.settled()
      expect(counts.received).toBe(60)
      expect(counts.compared + counts.skippedTotal).toBe(60)
      // Rules come first, so every POST is denied whatever the sampling and the bounds do.
      expect(counts.skipped.denied_by_rule).toBe(9)
    },
  },
]

/**
 * Registers one test per case (inside the caller's `describe`), each
 * against a fresh target on a shared live/shadow pair.
 */
export function shadowCaseSuite(
  start: StartTarget,
  cases: readonly ShadowCase[] = SHADOW_CASES,
): void {
  let live: TestUpstream
  let shadow: TestUpstream
  useUpstreamPair((pair) => ({ live, shadow } = pair))

  for (const shadowCase of cases) {
    test(shadowCase.name, async () => {
      const shadowUrl = shadowCase.shadowDown ? refusedUrl() : shadow.url
      const target = await start({ ...shadowCase.config, live: live.url, shadow: shadowUrl })
      try {
        await shadowCase.run(new CaseContext(target, live, shadow))
      } finally {
        await target.stop()
      }
    })
  }
}
