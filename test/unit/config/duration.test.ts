import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { formatDuration, parseDuration } from '../../../src/config/duration.ts'

describe('parseDuration', () => {
  test.each([
    ['720h', 720 * 3_600_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['300ms', 300],
    ['2h45m10s', 9_910_000],
    ['0', 0],
    ['0s', 0],
    ['-1h', -3_600_000],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['  5m ', 300_000],
    ['.5s', 500],
  ])('parses %p', (text, ms) => {
    expect(parseDuration(text)).toBe(ms)
  })

  test.each(['', 'h', '10', '1d', '1 h', '1h 30m', 'abc', '1.2.3s', '--1h', 'h1'])(
    'rejects %p',
    (text) => {
      expect(parseDuration(text)).toBeUndefined()
    },
  )

  test('formatting then parsing gives the same whole-millisecond value', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms)
      }),
    )
  })
})
