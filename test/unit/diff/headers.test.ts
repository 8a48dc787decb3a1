import { describe, expect, test } from 'bun:test'
import { canonicalHeaderName, comparedHeaders, headerValues } from '../../../src/diff/index.ts'

describe('header names and the compared header set', () => {
  test.each([
    ['content-type', 'Content-Type'],
    ['CONTENT-TYPE', 'Content-Type'],
    ['x-request-id', 'X-Request-Id'],
    ['etag', 'Etag'],
    ['www-authenticate', 'Www-Authenticate'],
    ['x-b3-traceid', 'X-B3-Traceid'],
    ['bad name', 'bad name'],
  ])('%p is written %p', (name, canonical) => {
    expect(canonicalHeaderName(name)).toBe(canonical)
  })

  test('drops the volatile set and hop-by-hop headers', () => {
    const headers = comparedHeaders({
      date: ['Mon'],
      'content-length': ['12'],
      'transfer-encoding': ['chunked'],
      connection: ['keep-alive, X-Hop'],
      'keep-alive': ['timeout=5'],
      age: ['1'],
      server: ['nginx'],
      via: ['1.1 a'],
      'x-request-id': ['r'],
      etag: ['"x"'],
      'last-modified': ['Mon'],
      expires: ['0'],
      'proxy-authenticate': ['Basic'],
      te: ['trailers'],
      trailer: ['X'],
      upgrade: ['h2c'],
      'x-hop': ['named in Connection'],
      'content-type': ['application/json'],
      'x-custom': ['1'],
    })
    expect(headers).toEqual({ 'Content-Type': ['application/json'], 'X-Custom': ['1'] })
  })

  test('joins the values of names that differ only in case', () => {
    expect(comparedHeaders({ 'x-a': ['1'], 'X-A': ['2'] })).toEqual({ 'X-A': ['1', '2'] })
  })

  test('headerValues finds a header whatever the case', () => {
    expect(headerValues({ 'Content-Encoding': ['gzip'] }, 'content-encoding')).toEqual(['gzip'])
    expect(headerValues({}, 'content-encoding')).toBeUndefined()
  })
})
