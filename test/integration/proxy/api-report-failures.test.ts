/**
 * How the proxy in API mode counts the API's answers to its reports
 * (docs/proxy.md "Which answers count against the API"), against a
 * scripted API: a capture the API refuses is one `report_failed` (413:
 * `body_too_large`), not retried, and no breaker failure; a refused key
 * or a deleted gate opens the breaker.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sumSamples } from '../../support/prometheus-text.ts'
import { JSON_TEXT, startUpstreamPair, type TestUpstream } from '../../support/upstreams.ts'
import { apiModeEnv, startTestProxy, type ProxyUnderTest } from './proxy-harness.ts'
import { problem, startScriptedApi, type ScriptedApi } from './scripted-api.ts'

let live: TestUpstream
let shadow: TestUpstream
let stopPair: () => Promise<void>
let api: ScriptedApi

beforeAll(async () => {
  const pair = await startUpstreamPair()
  live = pair.live
  shadow = pair.shadow
  stopPair = pair.stop
  api = startScriptedApi({ liveUrl: live.url, shadowUrl: shadow.url })
})

afterAll(async () => {
  api.stop()
  await stopPair()
})

async function withProxy(body: (proxy: ProxyUnderTest) => Promise<void>): Promise<void> {
  api.reports.length = 0
  const proxy = await startTestProxy(
    apiModeEnv(api, {
      SVC_APP_API_TIMEOUT: '5s',
      SVC_APP_RETRY_DELAY: '10ms',
      SVC_APP_MAX_RETRIES: '3',
      SVC_APP_CB_FAILURE_THRESHOLD: '2',
      SVC_APP_CB_DELAY: '1m',
    }),
  )
  try {
    await body(proxy)
  } finally {
    await proxy.stop()
  }
}

/** One request through the proxy, its live answer checked, then every request accounted for. */
async function send(proxy: ProxyUnderTest) {
  const response = await fetch(`${proxy.url}/json`)
  expect(response.status).toBe(200)
  expect(await response.text()).toBe(JSON_TEXT)
  return proxy.settled()
}

const breakerState = async (proxy: ProxyUnderTest) => {
  const text = await proxy.metricsText()
  return (['closed', 'open', 'half-open'] as const).find((state) => sumSamples(text, 'svc_api_circuit_breaker_state', { state }) === 1)
}

describe('a capture the API refuses', () => {
  test('a 500 marked capture_rejected, 400 and 409: once each as report_failed, not retried, the breaker stays closed', () =>
    withProxy(async (proxy) => {
      const answers = [
        () => problem(500, '/errors/internal', { capture_rejected: true }),
        () => problem(400, '/errors/validation'),
        () => problem(409, '/errors/conflict'),
      ]
      for (const answer of answers) {
        api.answer = answer
        // More captures than the failure threshold (2), each of them refused.
        for (let i = 0; i < 3; i++) await send(proxy)
      }
      const counts = await proxy.settled()
      expect(counts.skipped.report_failed).toBe(9)
      expect(counts.skippedTotal).toBe(9)
      expect(api.reports).toHaveLength(9)
      expect(await breakerState(proxy)).toBe('closed')
      // Rate-limited: one line per status in the interval, not one per capture.
      const warnings = proxy.records().filter((r) => r.msg === 'capture rejected by the API')
      expect(warnings.map((r) => r.status)).toEqual([500, 400, 409])
      expect(warnings[2]).toMatchObject({ type: '/errors/conflict', detail: 'scripted 409' })

      // The API still takes the next capture.
      api.answer = () => new Response('{"data":{}}', { status: 201 })
      expect((await send(proxy)).reported).toBe(1)
    }), 20_000)

  test('a 413 is counted as body_too_large', () =>
    withProxy(async (proxy) => {
      api.answer = () => problem(413, '/errors/payload-too-large')
      const counts = await send(proxy)
      expect(counts.skipped.body_too_large).toBe(1)
      expect(counts.skipped.report_failed).toBe(0)
      expect(api.reports).toHaveLength(1)
    }))

  test('429 and 503 are retried after Retry-After and are no breaker failures', () =>
    withProxy(async (proxy) => {
      const script = [
        problem(429, '/errors/rate-limited', {}, { 'retry-after': '0' }),
        problem(503, '/errors/unavailable', {}, { 'retry-after': '0' }),
        problem(429, '/errors/rate-limited', {}, { 'retry-after': '0' }),
      ]
      api.answer = () => script.shift() ?? new Response('{"data":{}}', { status: 201 })
      const counts = await send(proxy)
      expect(counts.reported).toBe(1)
      expect(api.reports).toHaveLength(4)
      expect(await breakerState(proxy)).toBe('closed')
    }))
})

describe('a refusal that every capture would get', () => {
  test.each([
    [404, 'capture refused by the API: the gate is gone'],
    [401, "capture refused by the API: the proxy's key is refused"],
  ])('a %d is not retried, is a breaker failure, and opens the breaker', (status, message) =>
    withProxy(async (proxy) => {
      api.answer = () => problem(status, status === 404 ? '/errors/not-found' : '/errors/unauthorized')
      for (let i = 0; i < 2; i++) await send(proxy)
      expect(api.reports).toHaveLength(2)
      expect(await breakerState(proxy)).toBe('open')
      await proxy.waitForRecord(message)
      const counts = await send(proxy)
      expect(counts.skipped.report_failed).toBe(2)
      expect(counts.skipped.breaker_open).toBe(1)
      expect(api.reports).toHaveLength(2)
    }))
})
