import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startUpstreamPair, type TestUpstream } from '../../support/upstreams.ts'
import { histogramSeries } from '../../support/prometheus-text.ts'
import { standaloneEnv, startTestProxy, type ProxyUnderTest } from './proxy-harness.ts'

let live: TestUpstream
let shadow: TestUpstream
let stopPair: () => Promise<void>
let proxy: ProxyUnderTest

beforeAll(async () => {
  const pair = await startUpstreamPair()
  live = pair.live
  shadow = pair.shadow
  stopPair = pair.stop
  proxy = await startTestProxy(standaloneEnv(live.url, shadow.url))
})

afterAll(async () => {
  await proxy.stop()
  await stopPair()
})

describe('admin server', () => {
  test('/health/live and /health/ready answer 200 once started', async () => {
    expect((await fetch(`${proxy.adminUrl}/health/live`)).status).toBe(200)
    const ready = await fetch(`${proxy.adminUrl}/health/ready`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ status: 'ready' })
  })

  test('/metrics has the documented series, with svc_target and server address/port on the client histogram', async () => {
    await (await fetch(`${proxy.url}/json`)).text()
    await proxy.settled()
    const text = await proxy.metricsText()
    const liveUrl = new URL(live.url)
    const liveSeries = histogramSeries(text, 'http_client_request_duration_seconds', {
      svc_target: 'live',
      server_address: '127.0.0.1',
      server_port: liveUrl.port,
      http_request_method: 'GET',
      http_response_status_code: '200',
    })
    expect(liveSeries.count).toBe('1')
    const shadowSeries = histogramSeries(text, 'http_client_request_duration_seconds', {
      svc_target: 'shadow',
      server_port: new URL(shadow.url).port,
    })
    expect(shadowSeries.count).toBe('1')
    const server = histogramSeries(text, 'http_server_request_duration_seconds', { http_request_method: 'GET' })
    expect(server.count).toBe('1')
    expect(text).not.toContain('http_route')
    for (const name of [
      'svc_responses_compared_total',
      'svc_diff_operations',
      'svc_comparisons_skipped_total',
      'process_resident_memory_bytes',
      'process_cpu_seconds_total',
      'bun_heap_used_bytes',
    ]) {
      expect(text).toContain(`# TYPE ${name} `)
    }
  })

  test('proxied traffic never reaches the admin server, and admin paths on the proxy port go to live', async () => {
    const adminNotFound = await fetch(`${proxy.adminUrl}/json`)
    expect(adminNotFound.status).toBe(404)
    expect(adminNotFound.headers.get('content-type')).toBe('application/problem+json')
    const wrongMethod = await fetch(`${proxy.adminUrl}/metrics`, { method: 'POST' })
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD')
    live.reset()
    const proxied = await fetch(`${proxy.url}/metrics`)
    expect(await proxied.json()).toEqual({ path: '/metrics' })
    expect(live.requests.map((r) => r.target)).toEqual(['/metrics'])
    await proxy.settled()
  })
})

describe('admin server options', () => {
  test('SVC_APP_METRICS_ENABLED=false: no /metrics, health still there', async () => {
    const quiet = await startTestProxy(standaloneEnv(live.url, shadow.url, { SVC_APP_METRICS_ENABLED: 'false' }))
    try {
      expect((await fetch(`${quiet.adminUrl}/metrics`)).status).toBe(404)
      expect((await fetch(`${quiet.adminUrl}/health/ready`)).status).toBe(200)
    } finally {
      await quiet.stop()
    }
  })

  test('readiness turns 503 when shutdown starts, while in-flight live requests finish', async () => {
    const stopping = await startTestProxy(standaloneEnv(live.url, shadow.url))
    live.reset()
    const slow = fetch(`${stopping.url}/slow?ms=600`)
    await live.waitForRequests(1)
    // Polled while the stop is under way: the admin server outlives the proxy listener.
    const stopped = stopping.stop()
    const ready = await fetch(`${stopping.adminUrl}/health/ready`)
    expect(ready.status).toBe(503)
    expect(await ready.json()).toEqual({ status: 'stopping' })
    const response = await slow
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ slept: 600 })
    await stopped
  })
})
