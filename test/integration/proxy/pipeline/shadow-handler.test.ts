/**
 * The shadowing core used directly, as the svc_gate module mounts it: a
 * host's own Bun.serve, a path prefix stripped before forwarding, metrics
 * on the host's registry, close() draining the comparisons.
 */
import { describe, expect, test } from 'bun:test'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { createLogger } from '../../../../src/log/index.ts'
import { Registry } from '../../../../src/metrics/index.ts'
import {
  createProxyMetrics,
  createShadowHandler,
  type Capture,
  type ShadowSettings,
} from '../../../../src/proxy/index.ts'
import { json, useUpstreamPair, waitFor, type TestUpstream } from '../../../support/upstreams.ts'
import { testShadowSettings } from '../../../support/shadow-settings.ts'
import { sumSamples } from '../../../support/prometheus-text.ts'

let live: TestUpstream
let shadow: TestUpstream
useUpstreamPair((pair) => ({ live, shadow } = pair))

function settings(overrides: Partial<ShadowSettings> = {}): ShadowSettings {
  return testShadowSettings(live.url, shadow.url, overrides)
}

describe('createShadowHandler in a host server', () => {
  test('forwards under a prefix, logs diffs, counts on the host’s registry, and drains on close', async () => {
    const registry = new Registry()
    const lines: string[] = []
    const handler = createShadowHandler(settings(), {
      logger: createLogger({ level: 'info', format: 'json', write: (line) => void lines.push(line) }),
      metrics: createProxyMetrics(registry),
    })
    const host = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(request, server) {
        const url = new URL(request.url)
        if (!url.pathname.startsWith('/api/')) return new Response('host route')
        return handler.fetch(request, {
          clientAddress: server.requestIP(request)?.address,
          pathAndQuery: url.pathname.slice('/api'.length) + url.search,
        })
      },
    })
    try {
      shadow.route('/whoami', () => json({ name: 'candidate' }))
      const response = await fetch(`http://127.0.0.1:${host.port}/api/whoami?x=1`)
      expect(await response.json()).toEqual({ name: 'live' })
      expect(await (await fetch(`http://127.0.0.1:${host.port}/other`)).text()).toBe('host route')
      expect(live.requests.at(-1)!.target).toBe('/whoami?x=1')

      const result = await handler.close()
      expect(result.aborted).toBe(0)
      expect(handler.inFlight).toBe(0)
      const record = JSON.parse(lines.find((line) => line.includes('response diff detected'))!)
      expect(record).toMatchObject({ 'request.path': '/whoami', diff: 'replace /body/name="candidate"' })
      expect(sumSamples(registry.render(), 'svc_responses_compared_total', { gate: '', result: 'diff' })).toBe(1)
    } finally {
      host.stop(true)
    }
  })

  test('a request the handler fails on unexpectedly is a 500 without anything internal, and still counted as received', async () => {
    const registry = new Registry()
    const lines: string[] = []
    const handler = createShadowHandler(settings(), {
      logger: createLogger({ level: 'error', format: 'json', write: (line) => void lines.push(line) }),
      metrics: createProxyMetrics(registry),
    })
    // A bug stood in for by a host whose forwarding context throws when read.
    const broken = {
      get pathAndQuery(): string {
        throw new Error('a bug in the host')
      },
    }
    const response = await handler.fetch(new Request('http://host.test/x'), broken)
    expect(response.status).toBe(500)
    expect(await response.json()).toMatchObject({ type: '/errors/internal', detail: 'the proxy failed to handle the request' })
    expect(lines.some((line) => line.includes('proxy request failed unexpectedly'))).toBe(true)
    expect(sumSamples(registry.render(), 'http_server_request_duration_seconds_count', { http_response_status_code: '500' })).toBe(1)
    await handler.close()
  })

  test('two handlers can share one registry and one set of metrics', async () => {
    const metrics = createProxyMetrics(new Registry())
    const logger = createLogger({ level: 'error', format: 'json', write: () => {} })
    const a = createShadowHandler(settings(), { logger, metrics })
    const b = createShadowHandler(settings({ samplingRate: 0 }), { logger, metrics })
    await (await a.fetch(new Request('http://host/json'))).text()
    await (await b.fetch(new Request('http://host/json'))).text()
    await Promise.all([a.close(), b.close()])
    const text = metrics.registry.render()
    expect(sumSamples(text, 'svc_responses_compared_total')).toBe(1)
    expect(sumSamples(text, 'svc_comparisons_skipped_total', { reason: 'sampled_out' })).toBe(1)
  })

  test('the capture has live’s headers as live sent them, Content-Length included, for a body still arriving', async () => {
    // Content-Length 10: "hello" with the headers, "world" 200 ms later, after the client's response has started.
    const trickling = createServer((socket) => {
      socket.on('data', () => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nhello')
        setTimeout(() => socket.write('world'), 200)
      })
    }).listen(0, '127.0.0.1')
    await once(trickling, 'listening')
    const captures: Capture[] = []
    const handler = createShadowHandler(settings({ liveUrl: `http://127.0.0.1:${(trickling.address() as AddressInfo).port}` }), {
      logger: createLogger({ level: 'error', format: 'json', write: () => {} }),
      sink: {
        submit(capture) {
          captures.push(capture)
          return { kind: 'reported' }
        },
      },
    })
    // Served as a host would, so that the response really goes out before live's body is through.
    const host = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => handler.fetch(request) })
    try {
      expect(await (await fetch(`http://127.0.0.1:${host.port}/json`)).text()).toBe('helloworld')
      await handler.close()
      expect(captures).toHaveLength(1)
      expect(new TextDecoder().decode(captures[0]!.live.body)).toBe('helloworld')
      expect(captures[0]!.live.headers['Content-Length']).toEqual(['10'])
    } finally {
      host.stop(true)
      trickling.close()
    }
  })

  test('drain() aborts comparisons still running at its bound', async () => {
    const handler = createShadowHandler(settings(), { logger: createLogger({ level: 'error', format: 'json', write: () => {} }) })
    shadow.route('/json', () => new Promise<Response>(() => {}))
    await (await handler.fetch(new Request('http://host/json'))).text()
    await waitFor(() => (shadow.requests.length > 0 ? true : undefined))
    expect(handler.inFlight).toBe(1)
    expect(await handler.drain(100)).toEqual({ completed: 0, aborted: 1 })
    expect(sumSamples(handler.metrics.registry.render(), 'svc_comparisons_skipped_total', { reason: 'report_failed' })).toBe(1)
    await handler.close(0)
  })
})
