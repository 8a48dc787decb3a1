/**
 * The shadowing core used directly, as the svc_gate module mounts it: a
 * host's own Bun.serve, a path prefix stripped before forwarding, metrics
 * on the host's registry, close() draining the comparisons.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { DEFAULT_DIFF_CONFIG } from '../../../src/diff/index.ts'
import { createLogger } from '../../../src/log/index.ts'
import { Registry } from '../../../src/metrics/index.ts'
import {
  compileShadowRules,
  createProxyMetrics,
  createShadowHandler,
  DEFAULT_HTTP_CLIENT,
  type ShadowSettings,
} from '../../../src/proxy/index.ts'
import { json, startUpstreamPair, waitFor, type TestUpstream } from '../../support/upstreams.ts'
import { sumSamples } from './proxy-harness.ts'

let live: TestUpstream
let shadow: TestUpstream
let stopPair: () => Promise<void>

beforeAll(async () => {
  const pair = await startUpstreamPair()
  live = pair.live
  shadow = pair.shadow
  stopPair = pair.stop
})

afterAll(() => stopPair())

function settings(overrides: Partial<ShadowSettings> = {}): ShadowSettings {
  return {
    liveUrl: live.url,
    shadowUrl: shadow.url,
    gate: '',
    liveTimeoutMs: 5000,
    shadowTimeoutMs: 10_000,
    maxBodyBytes: 0,
    samplingRate: 1,
    shadowRules: compileShadowRules(''),
    maxConcurrentCallbacks: 200,
    httpClient: DEFAULT_HTTP_CLIENT,
    redactedFields: [],
    diff: DEFAULT_DIFF_CONFIG,
    ...overrides,
  }
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
      live.reset()
      shadow.reset()
    }
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
    live.reset()
    shadow.reset()
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
    live.reset()
    shadow.reset()
  })
})
