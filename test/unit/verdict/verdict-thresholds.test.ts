import { describe, expect, test } from 'bun:test'
import {
  DEFAULT_THRESHOLDS,
  invalidThreshold,
  resolveThresholds,
  type ThresholdName,
  type ThresholdOverrides,
} from '../../../src/verdict/index.ts'

describe('resolveThresholds', () => {
  test('the query wins over the gate, the gate over the built-in defaults, one threshold at a time', () => {
    const gate: ThresholdOverrides = { max_diff_rate: 0.2, min_requests: 10 }
    const query: ThresholdOverrides = { min_requests: 5, max_latency_ratio: 3 }
    expect(resolveThresholds(query, gate)).toEqual({ max_diff_rate: 0.2, max_error_rate: 0.01, max_latency_ratio: 3, min_requests: 5 })
  })

  test('no layer, or empty ones, gives the built-in defaults', () => {
    expect(resolveThresholds()).toEqual(DEFAULT_THRESHOLDS)
    expect(resolveThresholds({}, null, undefined)).toEqual(DEFAULT_THRESHOLDS)
  })

  test('0 is a value, not an absence', () => {
    expect(resolveThresholds({ max_diff_rate: 0 }, { max_diff_rate: 0.5 }).max_diff_rate).toBe(0)
  })
})

describe('invalidThreshold', () => {
  // [values, the threshold named]
  const cases: Array<[ThresholdOverrides, ThresholdName | undefined]> = [
    [{}, undefined],
    [{ max_diff_rate: 0, max_error_rate: 1, max_latency_ratio: 0.5, min_requests: 1 }, undefined],
    [{ max_diff_rate: -0.01 }, 'max_diff_rate'],
    [{ max_diff_rate: 1.01 }, 'max_diff_rate'],
    [{ max_error_rate: 2 }, 'max_error_rate'],
    [{ max_latency_ratio: 0 }, 'max_latency_ratio'],
    [{ max_latency_ratio: Infinity }, 'max_latency_ratio'],
    [{ max_latency_ratio: 1001 }, 'max_latency_ratio'],
    [{ min_requests: 0 }, 'min_requests'],
    [{ min_requests: 1.5 }, 'min_requests'],
    [{ min_requests: 1e12 }, 'min_requests'],
    [{ max_diff_rate: NaN }, 'max_diff_rate'],
  ]
  test.each(cases)('%p names %p', (values, name) => {
    expect(invalidThreshold(values)).toBe(name)
  })
})
