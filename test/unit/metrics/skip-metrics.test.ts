import { describe, expect, test } from 'bun:test'
import { createSkipMetrics, Registry, SKIP_REASONS } from '../../../src/metrics/index.ts'
import { familyOf, sampleOf } from '../../support/prometheus-text.ts'

describe('createSkipMetrics', () => {
  test('counts skips by gate and reason, every reason present from the start', () => {
    const registry = new Registry()
    const skips = createSkipMetrics(registry).forGate('')
    skips.inc('sampled_out')
    skips.inc('sampled_out')
    skips.inc('callbacks_full', 5)
    const family = familyOf(registry.render(), 'svc_comparisons_skipped_total')

    expect(family.type).toBe('COUNTER')
    expect(family.metrics).toHaveLength(SKIP_REASONS.length)
    expect(sampleOf(family, { gate: '', reason: 'sampled_out' })?.value).toBe('2')
    expect(sampleOf(family, { gate: '', reason: 'callbacks_full' })?.value).toBe('5')
    expect(sampleOf(family, { gate: '', reason: 'breaker_open' })?.value).toBe('0')
  })

  test('removeGate drops the series of one gate only', () => {
    const registry = new Registry()
    const metrics = createSkipMetrics(registry)
    metrics.forGate('a').inc('report_failed')
    metrics.forGate('b').inc('report_failed')
    metrics.removeGate('a')
    const family = familyOf(registry.render(), 'svc_comparisons_skipped_total')
    expect(new Set(family.metrics.map((m) => m.labels?.gate))).toEqual(new Set(['b']))
  })
})
