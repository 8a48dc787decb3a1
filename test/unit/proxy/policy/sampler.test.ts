import { afterEach, describe, expect, mock, spyOn, test } from 'bun:test'
import fc from 'fast-check'
import { createSampler } from '../../../../src/proxy/policy/sampler.ts'

describe('createSampler', () => {
  afterEach(() => mock.restore())

  test('rate 1 samples every request without drawing a number', () => {
    const random = mock(() => 0.999_999)
    const sample = createSampler(1, random)
    expect([sample(), sample(), sample()]).toEqual([true, true, true])
    expect(random).not.toHaveBeenCalled()
  })

  test('rate 1 holds even for a source that returns 1', () => {
    expect(createSampler(1, () => 1)()).toBe(true)
  })

  test('rate 0 samples no request, even when the source returns 0', () => {
    const random = mock(() => 0)
    const sample = createSampler(0, random)
    expect([sample(), sample()]).toEqual([false, false])
    expect(random).not.toHaveBeenCalled()
  })

  test('a request is sampled in when the random number is below the rate', () => {
    const draws = [0, 0.2499, 0.25, 0.9]
    const sample = createSampler(0.25, () => draws.shift() as number)
    expect([sample(), sample(), sample(), sample()]).toEqual([true, true, false, false])
  })

  test('decides exactly `random() < rate` for every rate strictly between 0 and 1', () => {
    const rate = fc.double({ min: 0, max: 1, noNaN: true }).filter((r) => r > 0 && r < 1)
    const draw = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })
    fc.assert(
      fc.property(rate, draw, (r, x) => {
        expect(createSampler(r, () => x)()).toBe(x < r)
      }),
    )
  })

  test('uses Math.random by default', () => {
    const random = spyOn(Math, 'random').mockReturnValue(0.1)
    const sample = createSampler(0.5)
    expect(sample()).toBe(true)
    random.mockReturnValue(0.7)
    expect(sample()).toBe(false)
    expect(random).toHaveBeenCalledTimes(2)
  })

  test('samples close to the rate with the default source', () => {
    const sample = createSampler(0.3)
    let sampled = 0
    for (let i = 0; i < 100_000; i++) if (sample()) sampled++
    expect(Math.abs(sampled / 100_000 - 0.3)).toBeLessThan(0.02)
  })

  test.each([-0.1, 1.01, Number.NaN, Number.POSITIVE_INFINITY])('rejects the rate %p', (rate) => {
    expect(() => createSampler(rate)).toThrow(RangeError)
  })
})
