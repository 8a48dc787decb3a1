import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { RateWindow } from '../../../../src/proxy/policy/rate-window.ts'

describe('RateWindow', () => {
  test('allows `limit` events at once, then none until the oldest leaves the window', () => {
    let now = 5000
    const window = new RateWindow(3, 1000, () => now)
    expect([window.tryTake(), window.tryTake(), window.tryTake(), window.tryTake()]).toEqual([true, true, true, false])
    now += 999
    expect(window.tryTake()).toBe(false)
    now += 1
    expect([window.tryTake(), window.tryTake(), window.tryTake(), window.tryTake()]).toEqual([true, true, true, false])
  })

  test('slides: an event frees its place exactly one window after it was allowed', () => {
    let now = 0
    const window = new RateWindow(2, 1000, () => now)
    expect(window.tryTake()).toBe(true)
    now = 600
    expect(window.tryTake()).toBe(true)
    now = 999
    expect(window.tryTake()).toBe(false)
    now = 1000
    expect(window.tryTake()).toBe(true)
    now = 1599
    expect(window.tryTake()).toBe(false)
    now = 1600
    expect(window.tryTake()).toBe(true)
  })

  test('a refusal takes nothing: it does not push the next place back', () => {
    let now = 0
    const window = new RateWindow(1, 1000, () => now)
    expect(window.tryTake()).toBe(true)
    for (now = 100; now < 1000; now += 100) expect(window.tryTake()).toBe(false)
    now = 1000
    expect(window.tryTake()).toBe(true)
  })

  test('refuses a limit that is not a whole number of at least 1', () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) expect(() => new RateWindow(limit)).toThrow(RangeError)
  })

  test('property: no window of the given length ever holds more than `limit` allowed events, and an event is refused only when it would', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 700 }), { maxLength: 80 }),
        (limit, gaps) => {
          let now = 0
          const window = new RateWindow(limit, 1000, () => now)
          const allowed: number[] = []
          for (const gap of gaps) {
            now += gap
            const inWindow = allowed.filter((at) => now - at < 1000).length
            const taken = window.tryTake()
            expect(taken).toBe(inWindow < limit)
            if (taken) allowed.push(now)
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
