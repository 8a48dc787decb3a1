import { describe, expect, test } from 'bun:test'
import {
  createComparisonMetrics,
  DIFF_OPERATION_BUCKETS,
  failedSideOf,
  Registry,
} from '../../../src/metrics/index.ts'
import { familyOf, histogramSeries, sampleOf } from '../../support/prometheus-text.ts'

const GATE = '0b9d6c1e-5f4a-4c1e-9a65-1f2d3c4b5a69'

describe('createComparisonMetrics', () => {
  test('counts results per gate, every result present from the start', () => {
    const registry = new Registry()
    const gate = createComparisonMetrics(registry).forGate(GATE)
    gate.record('match')
    gate.record('match')
    gate.failed('shadow')
    const family = familyOf(registry.render(), 'svc_responses_compared_total')

    expect(family.type).toBe('COUNTER')
    expect(sampleOf(family, { gate: GATE, result: 'match' })?.value).toBe('2')
    expect(sampleOf(family, { gate: GATE, result: 'diff' })?.value).toBe('0')
    expect(sampleOf(family, { gate: GATE, result: 'error' })?.value).toBe('1')
  })

  test('observes the number of operations only for a diff', () => {
    const registry = new Registry()
    const gate = createComparisonMetrics(registry).forGate('')
    gate.record('diff', 3)
    gate.record('diff', 150)
    gate.record('match', 99)
    gate.failed('both')
    const text = registry.render()

    expect(familyOf(text, 'svc_diff_operations').type).toBe('HISTOGRAM')
    const series = histogramSeries(text, 'svc_diff_operations', { gate: '' })
    expect(series.count).toBe('2')
    expect(series.sum).toBe('153')
    expect(series.buckets?.['5']).toBe('1')
    expect(series.buckets?.['200']).toBe('2')
  })

  test('an error is counted by its failed side too, each side present from the start, summing to result error', () => {
    const registry = new Registry()
    const gate = createComparisonMetrics(registry).forGate(GATE)
    gate.failed('live')
    gate.failed('live')
    gate.failed('both')
    const text = registry.render()
    const errors = familyOf(text, 'svc_comparison_errors_total')
    expect(errors.type).toBe('COUNTER')
    expect(sampleOf(errors, { gate: GATE, side: 'live' })?.value).toBe('2')
    expect(sampleOf(errors, { gate: GATE, side: 'shadow' })?.value).toBe('0')
    expect(sampleOf(errors, { gate: GATE, side: 'both' })?.value).toBe('1')
    expect(sampleOf(familyOf(text, 'svc_responses_compared_total'), { gate: GATE, result: 'error' })?.value).toBe('3')
  })

  test('failedSideOf: status 0 marks a failed side', () => {
    expect(failedSideOf(0, 200)).toBe('live')
    expect(failedSideOf(200, 0)).toBe('shadow')
    expect(failedSideOf(0, 0)).toBe('both')
  })

  test('uses operation-count buckets', () => {
    expect(DIFF_OPERATION_BUCKETS).toEqual([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000])
    expect(createComparisonMetrics(new Registry()).diffOperations.buckets).toEqual([
      ...DIFF_OPERATION_BUCKETS,
    ])
  })

  test('forGate returns the same binding; removeGate drops its series', () => {
    const registry = new Registry()
    const metrics = createComparisonMetrics(registry)
    expect(metrics.forGate('a')).toBe(metrics.forGate('a'))
    metrics.forGate('b').record('diff', 1)
    metrics.removeGate('a')
    const text = registry.render()
    const gates = familyOf(text, 'svc_responses_compared_total').metrics.map((m) => m.labels?.gate)
    expect(new Set(gates)).toEqual(new Set(['b']))
    expect(new Set(familyOf(text, 'svc_comparison_errors_total').metrics.map((m) => m.labels?.gate))).toEqual(new Set(['b']))
    expect(text).not.toContain('gate="a"')
  })
})
