/**
 * The noise check's bounds, on the shadowing core used directly: the
 * repeat within the live timeout, its bytes within the budget, and none
 * when live's first answer did not come through whole.
 */
import { describe, expect, test } from 'bun:test'
import { createLogger } from '../../../../src/log/index.ts'
import { Registry } from '../../../../src/metrics/index.ts'
import { createProxyMetrics, createShadowHandler, type ShadowSettings } from '../../../../src/proxy/index.ts'
import { sumSamples } from '../../../support/prometheus-text.ts'
import { testShadowSettings } from '../../../support/shadow-settings.ts'
import { json, useUpstreamPair, waitFor, type TestUpstream } from '../../../support/upstreams.ts'

let live: TestUpstream
let shadow: TestUpstream
useUpstreamPair((pair) => ({ live, shadow } = pair))

function start(overrides: Partial<ShadowSettings>) {
  const lines: string[] = []
  const metrics = createProxyMetrics(new Registry())
  const handler = createShadowHandler(testShadowSettings(live.url, shadow.url, { noiseSampleRate: 1, ...overrides }), {
    logger: createLogger({ level: 'info', format: 'json', write: (line) => void lines.push(line) }),
    metrics,
  })
  const metric = (name: string, labels: Record<string, string> = {}) => sumSamples(metrics.registry.render(), name, labels)
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  const idle = () => waitFor(() => (handler.inFlight === 0 ? true : undefined), 10_000, 'no comparison in flight')
  return { handler, metric, records, idle }
}

const isRepeat = (request: { headers: Headers }) => request.headers.get('x-svc-mode') === 'repeat'

describe('the noise check’s repeat', () => {
  test('is bounded by the live timeout: a repeat slower than it is an error, and the comparison does not wait for it', async () => {
    let repeatAnswered = false
    live.route('/price', async (request) => {
      if (isRepeat(request)) {
        await Bun.sleep(3000)
        repeatAnswered = true
      }
      return json({ price: 10 })
    })
    shadow.route('/price', () => json({ price: 11 }))
    const { handler, metric, records, idle } = start({ liveTimeoutMs: 300 })
    try {
      expect(await (await handler.fetch(new Request('http://host/price'))).json()).toEqual({ price: 10 })
      await idle()
      // Ended by the timeout, not by live's late answer.
      expect(repeatAnswered).toBe(false)
      expect(live.requests.filter(isRepeat)).toHaveLength(1)
      expect(metric('svc_noise_checks_total', { result: 'error' })).toBe(1)
      const record = records().find((r) => r.msg === 'response diff detected')!
      expect(record.diff).toBe('replace /body/price=11')
      // A failed repeat says nothing of the noise.
      expect(record).not.toHaveProperty('noise')
    } finally {
      await handler.close()
    }
  })

  test('whose bytes do not fit the bytes-in-flight budget is skipped (memory_budget); its comparison goes on', async () => {
    const body = JSON.stringify({ text: 'a'.repeat(990) })
    let shadowAnswered!: () => void
    const shadowIn = new Promise<void>((resolve) => {
      shadowAnswered = resolve
    })
    shadow.route('/doc', () => {
      shadowAnswered()
      return json(JSON.parse(body))
    })
    live.route('/doc', async (request) => {
      // The first answer once the shadow's is in: the comparison holds its two bodies before the repeat asks for a third.
      if (!isRepeat(request)) await shadowIn.then(() => Bun.sleep(50))
      return json(JSON.parse(body))
    })
    // Room for live's and the shadow's bodies, not for a third.
    const { handler, metric, idle } = start({ maxBytesInFlight: body.length * 2 + Math.floor(body.length / 2) })
    try {
      expect(await (await handler.fetch(new Request('http://host/doc'))).text()).toBe(body)
      await idle()
      expect(metric('svc_noise_checks_skipped_total', { reason: 'memory_budget' })).toBe(1)
      expect(metric('svc_responses_compared_total', { result: 'match' })).toBe(1)
      expect(metric('svc_comparisons_skipped_total')).toBe(0)
      expect(handler.bytesInFlight).toBe(0)
    } finally {
      await handler.close()
    }
  })

  test('is not made when live’s first answer broke off (live_incomplete)', async () => {
    const { handler, metric, idle } = start({})
    try {
      const response = await handler.fetch(new Request('http://host/reset-mid-body'))
      await response.text().catch(() => '')
      await idle()
      expect(live.requests).toHaveLength(1)
      expect(metric('svc_noise_checks_skipped_total', { reason: 'live_incomplete' })).toBe(1)
      expect(metric('svc_noise_checks_total')).toBe(0)
    } finally {
      await handler.close()
    }
  })
})
