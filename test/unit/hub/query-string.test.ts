import { describe, expect, test } from 'bun:test'
import {
  DEFAULT_GATE_QUERY,
  DEFAULT_REQUEST_QUERY,
  endOfDateTimeLocal,
  fromDateTimeLocal,
  gateQueryToString,
  hasRequestFilters,
  lastPageOffset,
  normaliseMethods,
  parseGateQuery,
  parseRequestQuery,
  requestQueryToString,
  toDateTimeLocal,
} from '../../../hub/src/lib/query-string.ts'

describe('request filters ⇄ query string', () => {
  test('defaults serialise to an empty query string', () => {
    expect(requestQueryToString(DEFAULT_REQUEST_QUERY)).toBe('')
    expect(parseRequestQuery('')).toEqual(DEFAULT_REQUEST_QUERY)
  })

  test('every listRequests filter round-trips', () => {
    const q = {
      method: ['GET', 'POST'],
      path: '/api/orders/*',
      from: '2025-06-01T00:00:00.000Z',
      to: '2025-06-02T12:30:00+02:00',
      has_diff: 'true',
      signature: '024f4f9242c2d465',
      template: '/v2/products/{id}',
      sort: 'path',
      order: 'asc',
      offset: 150,
      limit: 25,
    } as const
    const s = requestQueryToString(q)
    expect(s).toBe(
      'method=GET%2CPOST&path=%2Fapi%2Forders%2F*&from=2025-06-01T00%3A00%3A00.000Z&to=2025-06-02T12%3A30%3A00%2B02%3A00&has_diff=true' +
        '&signature=024f4f9242c2d465&template=%2Fv2%2Fproducts%2F%7Bid%7D&sort=path&order=asc&offset=150&limit=25',
    )
    expect(parseRequestQuery(s)).toEqual(q)
  })

  test('the query string is the API query: names match listRequests', () => {
    const s = new URLSearchParams(requestQueryToString({ ...DEFAULT_REQUEST_QUERY, has_diff: 'false', method: ['delete'] }))
    expect([...s.keys()]).toEqual(['method', 'has_diff'])
    expect(s.get('method')).toBe('DELETE')
    expect(s.get('has_diff')).toBe('false')
  })

  test.each([
    ['limit=0', 'limit', 50],
    ['limit=101', 'limit', 50],
    ['limit=abc', 'limit', 50],
    ['limit=100', 'limit', 100],
    ['offset=-5', 'offset', 0],
    ['offset=1e3', 'offset', 0],
    ['sort=latency', 'sort', 'created_at'],
    ['order=up', 'order', 'desc'],
    ['has_diff=yes', 'has_diff', 'any'],
    ['from=yesterday', 'from', ''],
    ['to=2025-13-45T00:00:00Z', 'to', ''],
    // Dates the API refuses though JavaScript's parser would roll them over or take them.
    ['from=2026-02-30T00:00:00Z', 'from', ''],
    ['from=0999-01-01T00:00:00Z', 'from', ''],
    ['to=2026-01-01T24:00:00Z', 'to', ''],
    ['method=get,,POST,get,G3T', 'method', ['GET', 'POST']],
    // A signature id is 16 hex digits (docs/insights.md); case is folded, anything else dropped.
    ['signature=024F4F9242C2D465', 'signature', '024f4f9242c2d465'],
    ['signature=024f4f9242c2d46', 'signature', ''],
    ['signature=024f4f9242c2d465a', 'signature', ''],
    ['signature=zz4f4f9242c2d465', 'signature', ''],
    ['template=%2Fa%00b', 'template', ''],
    ['template=(other)', 'template', '(other)'],
  ] as const)('a bad or odd value %p gives %p = %p', (search, key, expected) => {
    expect(parseRequestQuery(search)[key]).toEqual(expected as never)
  })

  test('hasRequestFilters ignores sort and paging', () => {
    expect(hasRequestFilters({ ...DEFAULT_REQUEST_QUERY, sort: 'path', offset: 50 })).toBe(false)
    expect(hasRequestFilters({ ...DEFAULT_REQUEST_QUERY, has_diff: 'false' })).toBe(true)
    expect(hasRequestFilters({ ...DEFAULT_REQUEST_QUERY, path: '/x' })).toBe(true)
    expect(hasRequestFilters({ ...DEFAULT_REQUEST_QUERY, signature: '024f4f9242c2d465' })).toBe(true)
    expect(hasRequestFilters({ ...DEFAULT_REQUEST_QUERY, template: '/v2/search' })).toBe(true)
  })
})

describe('gate list ⇄ query string', () => {
  test('defaults serialise to an empty query string', () => {
    expect(gateQueryToString(DEFAULT_GATE_QUERY)).toBe('')
  })

  test('search, sort and paging round-trip', () => {
    const q = { ...DEFAULT_GATE_QUERY, live_url: 'prod.internal', sort: 'name', order: 'asc', offset: 50 } as const
    const s = gateQueryToString(q)
    expect(s).toBe('live_url=prod.internal&sort=name&order=asc&offset=50')
    expect(parseGateQuery(s)).toEqual(q)
  })

  test('unknown sort keys fall back to created_at', () => {
    expect(parseGateQuery('sort=stats').sort).toBe('created_at')
  })
})

describe('helpers', () => {
  test.each([
    [0, 50, 0],
    [1, 50, 0],
    [50, 50, 0],
    [51, 50, 50],
    [100_000, 50, 99_950],
    [100_001, 100, 100_000],
  ])('last page offset of %p items by %p is %p', (total, limit, expected) => {
    expect(lastPageOffset(total, limit)).toBe(expected)
  })

  test('datetime-local values round-trip through RFC 3339 in any time zone', () => {
    for (const local of ['2025-06-01T00:00', '2025-12-31T23:59', '2024-02-29T12:30']) {
      const rfc = fromDateTimeLocal(local)
      expect(rfc).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect(toDateTimeLocal(rfc)).toBe(local)
    }
    expect(fromDateTimeLocal('')).toBe('')
    expect(fromDateTimeLocal('not a date')).toBe('')
    expect(toDateTimeLocal('')).toBe('')
  })

  test('an upper bound picked as a minute covers the whole minute and shows as that minute', () => {
    for (const local of ['2025-06-01T00:00', '2025-12-31T23:59', '2024-02-29T12:30']) {
      const end = endOfDateTimeLocal(local)
      expect(Date.parse(end) - Date.parse(fromDateTimeLocal(local))).toBe(59_999)
      expect(toDateTimeLocal(end)).toBe(local)
    }
    expect(endOfDateTimeLocal('')).toBe('')
    expect(endOfDateTimeLocal('not a date')).toBe('')
  })

  test('normaliseMethods upper-cases, dedupes and drops non-tokens', () => {
    expect(normaliseMethods([' get', 'Post', 'GET', '', 'P-1'])).toEqual(['GET', 'POST'])
  })
})
