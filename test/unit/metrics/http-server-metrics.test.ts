import { describe, expect, test } from 'bun:test'
import { createHttpServerMetrics, Registry } from '../../../src/metrics/index.ts'
import { familyOf, histogramSeries } from '../../support/prometheus-text.ts'

const NAME = 'http_server_request_duration_seconds'

describe('createHttpServerMetrics', () => {
  test('API form: method, status and route template', () => {
    const registry = new Registry()
    const metrics = createHttpServerMetrics(registry, { withRoute: true })
    metrics.observe('GET', 200, 0.003, '/gates/:gate_id')
    metrics.observe('GET', 200, 0.2, '/gates/:gate_id')
    const text = registry.render()

    const family = familyOf(text, NAME)
    expect(family.type).toBe('HISTOGRAM')
    expect(family.help).toBe('Duration of HTTP server requests.')
    expect(metrics.duration.labelNames).toEqual([
      'http_request_method',
      'http_response_status_code',
      'http_route',
    ])
    const series = histogramSeries(text, NAME, {
      http_request_method: 'GET',
      http_response_status_code: '200',
      http_route: '/gates/:gate_id',
    })
    expect(series.count).toBe('2')
    expect(series.buckets?.['0.005']).toBe('1')
    expect(series.buckets?.['0.25']).toBe('2')
  })

  test('proxy form: no route label', () => {
    const registry = new Registry()
    const metrics = createHttpServerMetrics(registry, { withRoute: false })
    metrics.observe('POST', 502, 1.2, '/ignored')
    const text = registry.render()
    expect(metrics.duration.labelNames).toEqual([
      'http_request_method',
      'http_response_status_code',
    ])
    expect(text).not.toContain('http_route')
    expect(
      histogramSeries(text, NAME, { http_request_method: 'POST', http_response_status_code: '502' })
        .count,
    ).toBe('1')
  })

  test('folds unknown methods into _OTHER so clients cannot mint series', () => {
    const registry = new Registry()
    const metrics = createHttpServerMetrics(registry, { withRoute: false })
    for (const method of ['FOO', 'BAR', 'get']) metrics.observe(method, 405, 0.001)
    const text = registry.render()
    expect(
      histogramSeries(text, NAME, {
        http_request_method: '_OTHER',
        http_response_status_code: '405',
      }).count,
    ).toBe('3')
  })

  test('an unmatched route is the empty value', () => {
    const registry = new Registry()
    createHttpServerMetrics(registry, { withRoute: true }).observe('GET', 404, 0.001)
    expect(registry.render()).toContain('http_route=""')
  })
})
