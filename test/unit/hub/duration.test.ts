import { describe, expect, test } from 'bun:test'
import { humanizeDuration, parseDuration, retentionError } from '../../../hub/src/lib/duration.ts'

describe('parseDuration (Go syntax)', () => {
  test.each([
    ['720h', 720 * 3_600_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['2h45m30s', (2 * 3600 + 45 * 60 + 30) * 1000],
    ['300ms', 300],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['.5s', 500],
    ['0', 0],
    [' 24h ', 86_400_000],
    ['-1h', -3_600_000],
  ])('%p is %p ms', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 6)
  })

  test.each(['', 'h', '10', '10d', '1h 30m', '1hh', '1.2.3s', 'abc', '--1h', '5 m'])('%p is not a duration', (text) => {
    expect(parseDuration(text)).toBeUndefined()
  })
})

describe('retentionError (per-gate retention field)', () => {
  const floor = '720h'
  test.each([
    ['', undefined],
    ['   ', undefined],
    ['720h', undefined],
    ['1440h', undefined],
    ['720h30m', undefined],
    ['43200m', undefined],
  ])('%p is accepted', (text, expected) => {
    expect(retentionError(text, floor)).toBe(expected)
  })

  test.each([
    ['30d', /not a duration/],
    ['0', /positive/],
    ['-720h', /positive/],
    ['719h', /at least the global floor of 720h/],
    ['1h30m', /at least the global floor/],
  ])('%p is refused', (text, message) => {
    expect(retentionError(text, floor)).toMatch(message)
  })

  test('without a known floor only the syntax and sign are checked', () => {
    expect(retentionError('1h', undefined)).toBeUndefined()
    expect(retentionError('0s', undefined)).toMatch(/positive/)
  })

  test('humanizeDuration reads 720h as 30 days', () => {
    expect(humanizeDuration('720h')).toBe('30 days')
    expect(humanizeDuration('1h30m')).toBe('1.5 hours')
    expect(humanizeDuration('0')).toBeUndefined()
    expect(humanizeDuration('x')).toBeUndefined()
  })
})
