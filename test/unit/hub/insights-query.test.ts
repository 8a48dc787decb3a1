import { describe, expect, test } from 'bun:test'
import {
  DEFAULT_WINDOW,
  WINDOWS,
  parseWindow,
  sortKeyOf,
  countedWindow,
  windowStart,
  windowToString,
} from '../../../hub/src/lib/insights-query.ts'

describe('the Differences window ⇄ query string', () => {
  test('each window round-trips; the default is left out of the URL', () => {
    for (const w of WINDOWS) expect(parseWindow(windowToString(w))).toBe(w)
    expect(windowToString(DEFAULT_WINDOW)).toBe('')
    expect(windowToString('7d')).toBe('window=7d')
  })

  test.each(['', 'window=', 'window=2h', 'window=24H', 'window=1 h'])(
    'a missing or unknown window %p is the default',
    (search) => {
      expect(parseWindow(search)).toBe(DEFAULT_WINDOW)
    },
  )

  test('the window starts that long before now, in UTC', () => {
    const now = Date.parse('2025-06-08T12:00:00.000Z')
    expect(windowStart('1h', now)).toBe('2025-06-08T11:00:00.000Z')
    expect(windowStart('24h', now)).toBe('2025-06-07T12:00:00.000Z')
    expect(windowStart('7d', now)).toBe('2025-06-01T12:00:00.000Z')
  })

  test('the counted window: whole minutes up to the last that has ended, so a list cut at its ends holds the count', () => {
    expect(countedWindow('1h', Date.parse('2025-06-08T12:34:56.789Z'))).toEqual({ from: '2025-06-08T11:34:00.000Z', to: '2025-06-08T12:33:59.999Z' })
    expect(countedWindow('24h', Date.parse('2025-06-08T12:34:00.000Z'))).toEqual({ from: '2025-06-07T12:34:00.000Z', to: '2025-06-08T12:33:59.999Z' })
  })
})

test('sortKeyOf keeps a table to the keys it offers', () => {
  expect(sortKeyOf(['count', 'rate'] as const, 'rate', 'count')).toBe('rate')
  expect(sortKeyOf(['count', 'rate'] as const, 'created_at', 'count')).toBe('count')
})
