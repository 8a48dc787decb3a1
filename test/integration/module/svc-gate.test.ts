/**
 * What is the module's own, beyond the behaviours shared with the proxy
 * (shared-cases.test.ts): living in a host next to its routes, the prefix,
 * gate.fetch outside Elysia, the registry, and closing with the host.
 */
import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { connect } from 'node:net'
import { createHttpServerMetrics, Registry } from '../../../src/metrics/index.ts'
import {
  ModuleConfigError,
  printBlock,
  svcGate,
  type SvcGateOptions,
} from '../../../src/module/index.ts'
import { sumSamples } from '../../support/prometheus-text.ts'
import { json, useUpstreamPair, waitFor, type TestUpstream } from '../../support/upstreams.ts'
import { HOST_KINDS, memoryLogger, startHost } from './module-harness.ts'

let live: TestUpstream
let shadow: TestUpstream
useUpstreamPair((pair) => ({ live, shadow } = pair))

const quiet = () => memoryLogger().logger
const options = (extra: Partial<SvcGateOptions> = {}): SvcGateOptions => ({
  live: live.url,
  shadow: shadow.url,
  ...extra,
})

/**
 * The status of a request sent byte for byte: fetch would resolve the dot
 * segments of `target` before sending it.
 */
async function rawStatus(url: string, target: string): Promise<number> {
  const { hostname, port } = new URL(url)
  const socket = connect({ host: hostname, port: Number(port) })
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`)
  await Promise.race([closed, Bun.sleep(5000)])
  socket.destroy()
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString())?.[1] ?? 0)
}

/** Waits until no comparison runs and the count of compared requests is `n`. */
const comparedAre = (gate: { inFlight: number; metricsText(): string }, n: number) =>
  waitFor(() =>
    gate.inFlight === 0 && sumSamples(gate.metricsText(), 'svc_responses_compared_total') === n
      ? true
      : undefined,
  )

for (const kind of HOST_KINDS) {
  describe(`in a ${kind} host`, () => {
    test('the host’s own routes are answered by the host; live and shadow see nothing of them', async () => {
      const gate = svcGate(options(), { prefix: '/api', logger: quiet() })
      const host = startHost(kind, gate)
      try {
        expect(await (await fetch(`${host.url}/`)).text()).toBe('host home')
        expect(await (await fetch(`${host.url}/health`)).json()).toEqual({ status: 'ok' })
        expect(await (await fetch(`${host.url}/api-docs`)).text()).toBe('host docs')
        expect(await (await fetch(`${host.url}/api/own`)).text()).toBe(
          'host route under the prefix',
        )
        const order = await fetch(`${host.url}/orders`, {
          method: 'POST',
          body: JSON.stringify({ sku: 'A-1', quantity: 2 }),
          headers: { 'content-type': 'application/json' },
        })
        expect(await order.json()).toEqual({ received: { sku: 'A-1', quantity: 2 } })
        expect((await fetch(`${host.url}/nowhere`)).status).toBe(404)
        expect(live.requests).toHaveLength(0)
        expect(shadow.requests).toHaveLength(0)
        expect(sumSamples(gate.metricsText(), 'http_server_request_duration_seconds_count')).toBe(0)

        // Below the host's route, the path is the gate's again.
        expect(await (await fetch(`${host.url}/api/own/child`)).json()).toEqual({
          path: '/api/own/child',
        })
        expect(await (await fetch(`${host.url}/api`)).json()).toEqual({ path: '/api' })
        await comparedAre(gate, 2)
      } finally {
        await host.stop()
        await gate.close()
      }
    })

    test('dot segments do not lead out of the prefix: nothing outside it reaches live or shadow', async () => {
      for (const stripPrefix of [false, true]) {
        const gate = svcGate(options(), { prefix: '/api', stripPrefix, logger: quiet() })
        const host = startHost(kind, gate)
        try {
          for (const target of ['/api/../admin', '/api/%2e%2e/admin', '/api/%2E%2E/orders', '/api/./../health']) {
            expect([404, 200, 405]).toContain(await rawStatus(host.url, target))
          }
          expect(live.requests).toHaveLength(0)
          expect(shadow.requests).toHaveLength(0)
          // Within the prefix, dot segments are resolved as usual.
          expect(await rawStatus(host.url, '/api/x/../items')).toBe(200)
          expect(live.requests.map((r) => r.target)).toEqual([stripPrefix ? '/items' : '/api/items'])
          await comparedAre(gate, 1)
          live.reset()
          shadow.reset()
        } finally {
          await host.stop()
          await gate.close()
        }
      }
    })

    test('stripPrefix forwards /api/items?x=1 as /items?x=1 to both; rules match the forwarded path', async () => {
      const gate = svcGate(options({ shadowRules: 'deny GET:/private/*' }), {
        prefix: '/api/',
        stripPrefix: true,
        logger: quiet(),
      })
      const host = startHost(kind, gate)
      try {
        expect(await (await fetch(`${host.url}/api/items?x=1`)).json()).toEqual({ path: '/items' })
        expect(await (await fetch(`${host.url}/api?y=2`)).json()).toEqual({ path: '/' })
        expect(await (await fetch(`${host.url}/api/private/key`)).json()).toEqual({
          path: '/private/key',
        })
        await comparedAre(gate, 2)
        expect(live.requests.map((r) => r.target)).toEqual(['/items?x=1', '/?y=2', '/private/key'])
        expect(shadow.requests.map((r) => r.target).sort()).toEqual(['/?y=2', '/items?x=1'])
        expect(
          sumSamples(gate.metricsText(), 'svc_comparisons_skipped_total', {
            reason: 'denied_by_rule',
          }),
        ).toBe(1)
      } finally {
        await host.stop()
        await gate.close()
      }
    })

    test('after close() the gate still forwards: live traffic is never refused', async () => {
      const gate = svcGate(options(), { prefix: '/api', logger: quiet() })
      const host = startHost(kind, gate)
      try {
        await gate.close()
        const response = await fetch(`${host.url}/api/json`)
        expect(response.status).toBe(200)
        await response.text()
        await gate.close()
        expect(sumSamples(gate.metricsText(), 'svc_responses_compared_total')).toBe(1)
      } finally {
        await host.stop()
        await gate.close()
      }
    })
  })
}

describe('gate.fetch in a fetch-style host', () => {
  test('as Bun.serve’s whole fetch: under the prefix it forwards, outside it answers a 404 Problem', async () => {
    const gate = svcGate(options(), { prefix: '/api', logger: quiet() })
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: gate.fetch })
    try {
      expect(await (await fetch(`${server.url}api/x`)).json()).toEqual({ path: '/api/x' })
      const outside = await fetch(`${server.url}apix?q=1`)
      expect(outside.status).toBe(404)
      expect(outside.headers.get('content-type')).toBe('application/problem+json')
      expect(await outside.json()).toEqual({
        type: '/errors/not-found',
        title: 'Not found',
        status: 404,
        detail: 'not under the svc_gate prefix /api',
        instance: '/apix',
      })
      expect(live.requests.map((r) => r.target)).toEqual(['/api/x'])
      // The server was passed: the client is in X-Forwarded-For.
      expect(live.requests[0]!.headers.get('x-forwarded-for')).toBe('127.0.0.1')
    } finally {
      await server.stop(true)
      await gate.close()
    }
  })

  test('a host that routes in its own fetch asks gate.matches(): whole segments, case-sensitive', async () => {
    const gate = svcGate(options(), { prefix: '/api', logger: quiet() })
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request, server) =>
        gate.matches(request) ? gate.fetch(request, server) : new Response('host'),
    })
    try {
      const answers: Record<string, unknown> = {}
      for (const path of ['/api', '/api/', '/api/a/b?c=d', '/apix', '/API/a', '/', '/v1/api']) {
        const response = await fetch(`${server.url.origin}${path}`)
        answers[path] =
          response.headers.get('content-type') === 'application/json'
            ? (await response.json()).path
            : await response.text()
      }
      expect(answers).toEqual({
        '/api': '/api',
        '/api/': '/api/',
        '/api/a/b?c=d': '/api/a/b',
        '/apix': 'host',
        '/API/a': 'host',
        '/': 'host',
        '/v1/api': 'host',
      })
    } finally {
      await server.stop(true)
      await gate.close()
    }
  })

  test('without a prefix the gate takes every path; without a server, X-Forwarded-For is left as it was', async () => {
    const gate = svcGate(options(), { logger: quiet() })
    try {
      expect(gate.prefix).toBe('')
      const response = await gate.fetch(new Request('http://shop.example/any/path?x=1'))
      expect(await response.json()).toEqual({ path: '/any/path' })
      const [received] = await live.waitForRequests(1)
      expect(received!.target).toBe('/any/path?x=1')
      expect(received!.headers.get('x-forwarded-for')).toBeNull()
    } finally {
      await gate.close()
    }
  })
})

describe('Elysia specifics', () => {
  test('hooks the host registers before .use(gate.plugin) apply to the gate’s routes', async () => {
    const gate = svcGate(options(), { prefix: '/api', logger: quiet() })
    const app = new Elysia()
      .onBeforeHandle(({ request, set }) => {
        if (request.headers.get('x-api-key') !== 'let-me-in') {
          set.status = 401
          return 'no key'
        }
      })
      .use(gate.plugin)
      .listen({ hostname: '127.0.0.1', port: 0 })
    try {
      const url = `http://127.0.0.1:${app.server!.port}/api/json`
      expect((await fetch(url)).status).toBe(401)
      expect(live.requests).toHaveLength(0)
      const allowed = await fetch(url, { headers: { 'x-api-key': 'let-me-in' } })
      expect(allowed.status).toBe(200)
      await allowed.text()
      expect(live.requests).toHaveLength(1)
    } finally {
      await app.stop(true)
      await gate.close()
    }
  })

  test('using the same gate twice mounts it once; two gates mount side by side', () => {
    const a = svcGate(options(), { prefix: '/a', logger: quiet() })
    const b = svcGate(options(), { prefix: '/b', logger: quiet() })
    const app = new Elysia().use(a.plugin).use(a.plugin).use(b.plugin)
    const paths = app.routes.map((route) => `${route.method} ${route.path}`).sort()
    expect(paths).toEqual(['ALL /a', 'ALL /a/*', 'ALL /b', 'ALL /b/*'])
  })

  test('app.stop() starts the drain; gate.close() then resolves once the comparison is done', async () => {
    const log = memoryLogger()
    const gate = svcGate(options({ shadowTimeout: '5s' }), { prefix: '/api', logger: log.logger })
    const app = new Elysia().use(gate.plugin).listen({ hostname: '127.0.0.1', port: 0 })
    shadow.route('/api/slow-diff', async () => {
      await Bun.sleep(400)
      return json({ changed: true })
    })
    await (await fetch(`http://127.0.0.1:${app.server!.port}/api/slow-diff`)).text()
    await shadow.waitForRequests(1)
    expect(gate.inFlight).toBe(1)
    await app.stop()
    // Nobody called close(): the plugin's stop hook did.
    await waitFor(() => log.records().find((r) => r.msg === 'background comparisons drained'), 3000)
    await gate.close()
    expect(gate.inFlight).toBe(0)
    expect(
      sumSamples(gate.metricsText(), 'svc_responses_compared_total', { gate: '', result: 'diff' }),
    ).toBe(1)
    expect(log.records().find((r) => r.msg === 'response diff detected')).toMatchObject({
      'request.path': '/api/slow-diff',
    })
  })
})

describe('configuration', () => {
  test('an object and the equivalent block give the same gate', async () => {
    const object = svcGate(
      options({ samplingRate: 0.5, shadowRules: 'allow POST:/api/search', diffSortArrays: true }),
      {
        logger: quiet(),
      },
    )
    const block = svcGate(printBlock(object.config), { logger: quiet() })
    expect(block.config).toEqual(object.config)
    await Promise.all([object.close(), block.close()])
  })

  test('a bad block fails before anything starts, naming the line, the column and what was expected', () => {
    const log = memoryLogger()
    const text = `svc_gate {\n    live ${live.url}\n    shadow ${shadow.url}\n    sampling_rate 2\n}`
    expect(() => svcGate(text, { logger: log.logger })).toThrow(
      new ModuleConfigError('sampling_rate', 'a number from 0 to 1', '"2"', {
        line: 4,
        column: 19,
      }),
    )
    expect(log.lines).toHaveLength(0)
  })

  test.each(['api', '/api/*', '/users/:id', '/a?b', '/a b', '//api'])(
    'refuses the prefix %p',
    (prefix) => {
      expect(() => svcGate(options(), { prefix, logger: quiet() })).toThrow(ModuleConfigError)
    },
  )

  test('logs one "svc_gate ready" line with the prefix and both URLs', async () => {
    const log = memoryLogger()
    const gate = svcGate(options({ samplingRate: 0.25 }), { prefix: '/api', logger: log.logger })
    expect(log.records()).toEqual([
      expect.objectContaining({
        msg: 'svc_gate ready',
        level: 'INFO',
        prefix: '/api',
        strip_prefix: false,
        live: live.url,
        shadow: shadow.url,
        sampling_rate: 0.25,
      }),
    ])
    await gate.close()
  })
})

describe('metrics', () => {
  test('on a registry the host passes, next to the host’s own series; gates on one registry share them', async () => {
    const registry = new Registry()
    registry.counter({ name: 'shop_orders_total', help: 'Orders placed.' }).inc(3)
    const a = svcGate(options(), { prefix: '/a', registry, logger: quiet() })
    const b = svcGate(options(), { prefix: '/b', registry, logger: quiet() })
    expect(a.registry).toBe(registry)
    await (await a.fetch(new Request('http://host/a/json'))).text()
    await (await b.fetch(new Request('http://host/b/json'))).text()
    await Promise.all([a.close(), b.close()])
    const text = registry.render()
    expect(sumSamples(text, 'shop_orders_total')).toBe(3)
    expect(sumSamples(text, 'svc_responses_compared_total', { gate: '', result: 'match' })).toBe(2)
    expect(a.metricsText()).toBe(b.metricsText())
  })

  test('each gate has a registry of its own by default', async () => {
    const a = svcGate(options(), { logger: quiet() })
    const b = svcGate(options(), { logger: quiet() })
    expect(a.registry).not.toBe(b.registry)
    await (await a.fetch(new Request('http://host/json'))).text()
    await a.close()
    expect(sumSamples(a.metricsText(), 'svc_responses_compared_total')).toBe(1)
    expect(sumSamples(b.metricsText(), 'svc_responses_compared_total')).toBe(0)
    await b.close()
  })

  test('a registry that already has http_server_request_duration_seconds is refused with what to do', () => {
    const registry = new Registry()
    createHttpServerMetrics(registry, { withRoute: true })
    expect(() => svcGate(options(), { registry, logger: quiet() })).toThrow(
      /^registry: metric http_server_request_duration_seconds: the name .* is already registered; leave out the registry option/,
    )
  })
})
