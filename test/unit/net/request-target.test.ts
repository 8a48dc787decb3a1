import { describe, expect, test } from 'bun:test'
import { pathAndQueryOf, pathOf, splitTarget } from '../../../src/net/request-target.ts'

describe('request target', () => {
  test.each([
    ['http://host/a/b?x=1', '/a/b?x=1', '/a/b'],
    ['http://host:8090', '/', '/'],
    ['http://[::1]:8090/health/live', '/health/live', '/health/live'],
    // What Bun hands over for an empty or malformed Host: the bare target.
    ['/health/live', '/health/live', '/health/live'],
    ['/gates?name=a#f', '/gates?name=a#f', '/gates'],
  ])('%p has the target %p and the path %p', (url, target, path) => {
    expect(pathAndQueryOf(url)).toBe(target)
    expect(pathOf(url)).toBe(path)
  })
})

test('splitTarget cuts a target at its first ?, into the path and the query without it', () => {
  expect(splitTarget('/a/b?x=1')).toEqual({ path: '/a/b', rawQuery: 'x=1' })
  expect(splitTarget('/a/b')).toEqual({ path: '/a/b', rawQuery: '' })
  expect(splitTarget('/a?')).toEqual({ path: '/a', rawQuery: '' })
  expect(splitTarget('/a?x=1?y')).toEqual({ path: '/a', rawQuery: 'x=1?y' })
})
