/**
 * The noise check on the standalone proxy (test/support/noise-cases.ts,
 * the same cases as the svc_gate module's), and what API mode sends: the
 * repeat as `live_repeat_response`, its results left to the API to count.
 */
import { describe, expect, test } from 'bun:test'
import { NOISE_CHECK_RESULTS } from '../../../src/metrics/index.ts'
import { NOISE_CASES } from '../../support/noise-cases.ts'
import { shadowCaseSuite, type TargetConfig } from '../../support/shadow-cases.ts'
import { json, useUpstreamPair, waitFor, type TestUpstream } from '../../support/upstreams.ts'
import { apiModeEnv, standaloneEnv, startTestProxy } from './proxy-harness.ts'
import { startScriptedApi } from './scripted-api.ts'

/** A case's settings as SVC_APP_* variables: `noiseSampleRate` → SVC_APP_NOISE_SAMPLE_RATE. */
function envOf(config: TargetConfig): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(config)) {
    if (key === 'live' || key === 'shadow' || value === undefined) continue
    env[`SVC_APP_${key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`] = Array.isArray(value) ? value.join(',') : String(value)
  }
  return env
}

describe('the noise check on the standalone proxy', () => {
  shadowCaseSuite(async (config) => {
    const proxy = await startTestProxy(standaloneEnv(config.live, config.shadow, envOf(config)))
    const { handler } = proxy.proxy
    return {
      url: proxy.url,
      records: () => proxy.records(),
      metricsText: async () => handler.metrics.registry.render(),
      get inFlight() {
        return handler.inFlight
      },
      close: () => proxy.stop(),
      stop: () => proxy.stop(),
    }
  }, NOISE_CASES)
})

describe('the noise check in API mode', () => {
  let live: TestUpstream
  let shadow: TestUpstream
  useUpstreamPair((pair) => ({ live, shadow } = pair))

  test('the capture carries live_repeat_response (a ResponsePayload, headers redacted) when a repeat was made; results are the API’s to count', async () => {
    const api = startScriptedApi({ liveUrl: live.url, shadowUrl: shadow.url })
    const proxy = await startTestProxy(apiModeEnv(api, { SVC_APP_NOISE_SAMPLE_RATE: '1', SVC_APP_SHADOW_RULES: 'allow POST:/search' }))
    try {
      let n = 0
      live.route('/order', () => json({ n: ++n }, { headers: { 'set-cookie': 'sid=secret' } }))
      await (await fetch(`${proxy.url}/order`)).arrayBuffer()
      await (await fetch(`${proxy.url}/search`, { method: 'POST', body: '{}' })).arrayBuffer()
      await proxy.settled()
      await waitFor(() => (api.reports.length === 2 ? true : undefined), 5000, 'two reports')
      const [get, post] = [...api.reports].sort((a, b) => String(a.body.method).localeCompare(String(b.body.method)))
      const repeat = get!.body.live_repeat_response as Record<string, unknown>
      expect(Object.keys(repeat).sort()).toEqual(['body', 'created_at', 'headers', 'latency_ms', 'status_code'])
      expect(repeat.status_code).toBe(200)
      expect(Buffer.from(String(repeat.body), 'base64').toString()).toBe('{"n":2}')
      expect(Buffer.from(String((get!.body.live_response as { body: string }).body), 'base64').toString()).toBe('{"n":1}')
      expect((repeat.headers as Record<string, string[]>)['Set-Cookie']).toEqual(['[REDACTED]'])
      expect(post!.body).not.toHaveProperty('live_repeat_response')
      expect(live.requests.filter((r) => r.headers.get('x-svc-mode') === 'repeat')).toHaveLength(1)
      // The proxy counts the skip; the result is the API's (an API-mode proxy's svc_noise_checks_total stays 0).
      expect(await proxy.metric('svc_noise_checks_skipped_total', { reason: 'method' })).toBe(1)
      for (const result of NOISE_CHECK_RESULTS) expect(await proxy.metric('svc_noise_checks_total', { result })).toBe(0)
    } finally {
      await proxy.stop()
      api.stop()
    }
  })
})
