import { describe, expect, test } from 'bun:test'
import { createHttpClientMetrics, Registry } from '../../../src/metrics/index.ts'
import { familyOf, histogramSeries } from '../../support/prometheus-text.ts'

const NAME = 'http_client_request_duration_seconds'

describe('createHttpClientMetrics', () => {
  test('labels each upstream with method, status, address, port and target', () => {
    const registry = new Registry()
    const metrics = createHttpClientMetrics(registry)
    metrics.forUpstream('live', 'http://127.0.0.1:3000/base').observe('GET', 200, 0.004)
    metrics.forUpstream('shadow', new URL('http://127.0.0.1:3001')).observe('GET', 500, 0.3)
    const text = registry.render()

    expect(familyOf(text, NAME).type).toBe('HISTOGRAM')
    expect(metrics.duration.labelNames).toEqual([
      'http_request_method',
      'http_response_status_code',
      'server_address',
      'server_port',
      'svc_target',
    ])
    const live = histogramSeries(text, NAME, {
      http_request_method: 'GET',
      http_response_status_code: '200',
      server_address: '127.0.0.1',
      server_port: '3000',
      svc_target: 'live',
    })
    expect(live.count).toBe('1')
    expect(live.buckets?.['0.005']).toBe('1')
    const shadow = histogramSeries(text, NAME, { server_port: '3001', svc_target: 'shadow' })
    expect(shadow.sum).toBe('0.3')
  })

  test.each([
    ['http://api.internal/', 'api.internal', '80'],
    ['https://api.internal/', 'api.internal', '443'],
    ['http://[::1]:8090/', '::1', '8090'],
  ])('derives address and port from %p', (url, address, port) => {
    const registry = new Registry()
    createHttpClientMetrics(registry).forUpstream('api', url).observe('POST', 201, 0.01)
    const text = registry.render()
    expect(text).toContain(`server_address="${address}",server_port="${port}",svc_target="api"`)
  })

  test('a request without a response has an empty status code', () => {
    const registry = new Registry()
    createHttpClientMetrics(registry).forUpstream('shadow', 'http://s:1').observe('GET', 0, 10)
    expect(registry.render()).toContain('http_response_status_code="",server_address="s"')
  })

  test('an unexpected target falls back to unknown', () => {
    const registry = new Registry()
    const metrics = createHttpClientMetrics(registry)
    metrics.forUpstream('mirror' as 'live', 'http://m:1').observe('GET', 200, 0.1)
    expect(registry.render()).toContain('svc_target="unknown"')
  })

  test('requests of alternating methods and statuses each reach their own series (the last series is kept between calls)', () => {
    const registry = new Registry()
    const recorder = createHttpClientMetrics(registry).forUpstream('live', 'http://l:1')
    const calls: [string, number][] = [['GET', 200], ['GET', 200], ['GET', 500], ['POST', 200], ['GET', 200], ['GET', 0], ['GET', 500]]
    for (const [method, status] of calls) recorder.observe(method, status, 0.01)
    const text = registry.render()
    const count = (method: string, status: string) => histogramSeries(text, NAME, { http_request_method: method, http_response_status_code: status }).count
    expect(count('GET', '200')).toBe('3')
    expect(count('GET', '500')).toBe('2')
    expect(count('POST', '200')).toBe('1')
    expect(count('GET', '')).toBe('1')
  })
})
