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

describe('splitTarget', () => {
  test.each([
    ['/a/b?x=1', '/a/b', 'x=1'],
    ['/a/b', '/a/b', ''],
    ['/a?', '/a', ''],
    ['/a?x=1?y', '/a', 'x=1?y'],
  ])('%p is the path %p and the query %p', (target, path, rawQuery) => {
    expect(splitTarget(target)).toEqual({ path, rawQuery })
  })
})
