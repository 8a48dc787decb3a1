import { describe, expect, test } from 'bun:test'
import { HTTP_DURATION_BUCKETS, Registry } from '../../../src/metrics/index.ts'
import { familyOf, histogramSeries } from '../../support/prometheus-text.ts'

describe('Histogram', () => {
  test('defaults to the OTel HTTP duration buckets, in seconds', () => {
    expect(HTTP_DURATION_BUCKETS).toEqual([
      0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
    ])
    const histogram = new Registry().histogram({ name: 'h_seconds', help: 'x' })
    expect(histogram.buckets).toEqual([...HTTP_DURATION_BUCKETS])
  })

  test('renders cumulative buckets up to +Inf, with _sum and _count', () => {
    const registry = new Registry()
    const histogram = registry.histogram({ name: 'h', help: 'x', buckets: [1, 5, 10] })
    for (const value of [0.5, 1, 3, 7, 7, 12]) histogram.observe(value)
    const text = registry.render()

    expect(familyOf(text, 'h').type).toBe('HISTOGRAM')
    expect(histogramSeries(text, 'h')).toEqual({
      buckets: { '1': '2', '5': '3', '10': '5', '+Inf': '6' },
      sum: '30.5',
      count: '6',
    })
  })

  test('bucket upper bounds are inclusive', () => {
    const registry = new Registry()
    const histogram = registry.histogram({ name: 'h', help: 'x', buckets: [0.1, 0.2] })
    histogram.observe(0.1)
    histogram.observe(0.2)
    histogram.observe(0.2000001)
    expect(histogramSeries(registry.render(), 'h').buckets).toEqual({
      '0.1': '1',
      '0.2': '2',
      '+Inf': '3',
    })
  })

  test('a value below every bound lands in the first bucket, negative ones too', () => {
    const registry = new Registry()
    const histogram = registry.histogram({ name: 'h', help: 'x', buckets: [1, 2] })
    histogram.observe(-5)
    histogram.observe(0)
    expect(histogramSeries(registry.render(), 'h')).toEqual({
      buckets: { '1': '2', '2': '2', '+Inf': '2' },
      sum: '-5',
      count: '2',
    })
  })

  test('ignores NaN, which would poison _sum for good', () => {
    const registry = new Registry()
    const histogram = registry.histogram({ name: 'h', help: 'x', buckets: [1] })
    histogram.observe(NaN)
    histogram.observe(0.5)
    expect(histogramSeries(registry.render(), 'h')).toEqual({
      buckets: { '1': '1', '+Inf': '1' },
      sum: '0.5',
      count: '1',
    })
  })

  test('counts +Infinity in the +Inf bucket only', () => {
    const registry = new Registry()
    const histogram = registry.histogram({ name: 'h', help: 'x', buckets: [1] })
    histogram.observe(Infinity)
    expect(histogramSeries(registry.render(), 'h')).toEqual({
      buckets: { '1': '0', '+Inf': '1' },
      sum: '+Inf',
      count: '1',
    })
  })

  test('keeps labelled series apart, each with its own cumulative buckets', () => {
    const registry = new Registry()
    const histogram = registry.histogram({
      name: 'req_seconds',
      help: 'x',
      labelNames: ['method', 'code'],
      buckets: [0.1, 1],
    })
    histogram.labels('GET', 200).observe(0.05)
    histogram.labels('GET', 200).observe(0.5)
    histogram.labels('POST', 500).observe(2)
    const text = registry.render()

    expect(text).toContain('req_seconds_bucket{method="GET",code="200",le="0.1"} 1\n')
    expect(text).toContain('req_seconds_sum{method="POST",code="500"} 2\n')
    expect(histogramSeries(text, 'req_seconds', { method: 'GET', code: '200' })).toEqual({
      buckets: { '0.1': '1', '1': '2', '+Inf': '2' },
      sum: '0.55',
      count: '2',
    })
    expect(histogramSeries(text, 'req_seconds', { method: 'POST', code: '500' })).toEqual({
      buckets: { '0.1': '0', '1': '0', '+Inf': '1' },
      sum: '2',
      count: '1',
    })
  })

  test('buckets are non-decreasing and +Inf equals _count, for any observations', () => {
    const registry = new Registry()
    const histogram = registry.histogram({ name: 'h', help: 'x' })
    let seed = 42
    for (let i = 0; i < 5000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      histogram.observe((seed / 2 ** 31) * 12)
    }
    const series = histogramSeries(registry.render(), 'h')
    const counts = [...HTTP_DURATION_BUCKETS.map(String), '+Inf'].map((le) =>
      Number(series.buckets?.[le]),
    )
    for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1])
    expect(counts.at(-1)).toBe(5000)
    expect(series.count).toBe('5000')
  })

  test('accepts a trailing +Inf bound and does not render it twice', () => {
    const registry = new Registry()
    registry.histogram({ name: 'h', help: 'x', buckets: [1, Infinity] }).observe(3)
    const text = registry.render()
    expect(text.match(/le="\+Inf"/g)).toHaveLength(1)
  })

  test.each([
    ['empty', []],
    ['unsorted', [1, 0.5]],
    ['repeated', [1, 1]],
    ['NaN', [NaN]],
  ])('rejects %s buckets', (_, buckets) => {
    expect(() => new Registry().histogram({ name: 'h', help: 'x', buckets })).toThrow(/bucket/)
  })

  test('a bound child takes a million observations', () => {
    const registry = new Registry()
    const child = registry
      .histogram({ name: 'hot_seconds', help: 'x', labelNames: ['method'] })
      .labels('GET')
    for (let i = 0; i < 1_000_000; i++) child.observe((i % 1000) / 1000)
    expect(child.count).toBe(1_000_000)
    expect(histogramSeries(registry.render(), 'hot_seconds', { method: 'GET' }).count).toBe(
      '1000000',
    )
  })
})
