import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { wilsonInterval } from '../../../src/insights/index.ts'

describe('wilsonInterval', () => {
  test.each([
    // successes, trials, low, high (95 %): reference values of the Wilson score interval
    [0, 10, 0, 0.2775],
    [10, 10, 0.7225, 1],
    [5, 10, 0.2366, 0.7634],
    [1, 100, 0.0018, 0.0545],
    [30, 30, 0.8865, 1],
    [20, 30, 0.4878, 0.8077],
  ])('%i of %i lies in [%p, %p]', (successes, trials, low, high) => {
    const interval = wilsonInterval(successes, trials, 1.96)
    expect(interval.low).toBeCloseTo(low, 3)
    expect(interval.high).toBeCloseTo(high, 3)
  })

  test('no trials: nothing is known', () => {
    expect(wilsonInterval(0, 0, 1.96)).toEqual({ low: 0, high: 1 })
  })

  test('always within [0, 1], around the observed rate, and narrower with more trials at the same rate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (trials, p) => {
        const successes = Math.round(p * trials)
        const { low, high } = wilsonInterval(successes, trials, 1.96)
        const rate = successes / trials
        expect(low).toBeGreaterThanOrEqual(0)
        expect(high).toBeLessThanOrEqual(1)
        expect(low).toBeLessThanOrEqual(rate + 1e-12)
        expect(high).toBeGreaterThanOrEqual(rate - 1e-12)
        const wider = wilsonInterval(successes * 4, trials * 4, 1.96)
        expect(wider.high - wider.low).toBeLessThanOrEqual(high - low + 1e-12)
      }),
    )
  })
})
