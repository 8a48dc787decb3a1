import { describe, expect, test } from 'bun:test'
import { formatTime, rateBarPercent, visibleJson } from '../../../hub/src/lib/format.ts'

describe('rateBarPercent', () => {
  test.each([
    [0, 0],
    [Number.NaN, 0],
    [-0.1, 0],
    [0.0001, 3],
    [0.01, 10],
    [0.04, 20],
    [0.25, 50],
    [1, 100],
    [1.5, 100],
  ])('rate %p → %p%', (rate, width) => {
    expect(rateBarPercent(rate)).toBeCloseTo(width, 10)
  })

  test('grows with the rate, so a higher rate never draws a shorter bar', () => {
    const rates = [0, 0.001, 0.002, 0.006, 0.05, 0.11, 0.3, 0.9, 1]
    const widths = rates.map(rateBarPercent)
    expect(widths).toEqual([...widths].sort((a, b) => a - b))
  })
})

describe('formatTime', () => {
  test('formats like toLocaleString with the same options, from one shared formatter', () => {
    const at = '2025-06-02T08:30:05.123Z'
    const expected = new Date(at).toLocaleString('en-GB', {
      year: 'numeric',
      month: 'short',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    expect(formatTime(at)).toBe(expected)
  })

  test('an unparsable time is shown as given', () => {
    expect(formatTime('yesterday')).toBe('yesterday')
  })
})

describe('visibleJson', () => {
  test('bidirectional controls are written as escapes, and read back as the same value', () => {
    const value = { name: '\u202Egnp.exe', mark: 'a\u200Fb\u2066c\u2069', plain: 'ü €' }
    const text = visibleJson(value)
    expect(text).toBe('{"name":"\\u202egnp.exe","mark":"a\\u200fb\\u2066c\\u2069","plain":"ü €"}')
    expect(JSON.parse(text)).toEqual(value)
    expect(visibleJson(undefined)).toBe('undefined')
  })
})
