import { describe, expect, test } from 'bun:test'
import { ModuleConfigError } from '../../../src/module/module-config-error.ts'
import { mountPrefix } from '../../../src/module/mount-prefix.ts'

describe('mountPrefix', () => {
  test.each([
    [undefined, ''],
    ['', ''],
    ['/', ''],
    ['/api', '/api'],
    ['/api/', '/api'],
    ['/api/v1/', '/api/v1'],
  ])('normalises %p to %p', (prefix, normalised) => {
    expect(mountPrefix(prefix).prefix).toBe(normalised)
  })

  test.each([
    ['/api', true],
    ['/api/', true],
    ['/api/items/1', true],
    ['/apix', false],
    ['/api-docs', false],
    ['/API/items', false],
    ['/', false],
    ['/v1/api', false],
  ])('on /api, matches(%p) is %p', (path, expected) => {
    expect(mountPrefix('/api').matches(path)).toBe(expected)
  })

  test('without a prefix, every path matches', () => {
    const mount = mountPrefix()
    for (const path of ['/', '/api', '/anything/at/all']) expect(mount.matches(path)).toBe(true)
  })

  test('keeps the path by default: nothing to rewrite', () => {
    expect(mountPrefix('/api').forwardedTarget('http://h/api/items?x=1')).toBeUndefined()
  })

  test.each([
    ['http://h/api/items?x=1', '/items?x=1'],
    ['http://h/api', '/'],
    ['http://h/api/', '/'],
    ['http://h/api?x=1', '/?x=1'],
    ['http://h/api/a/b/', '/a/b/'],
    // Not under the prefix (a host that adds a prefix of its own): as received.
    ['http://h/v1/api/items', undefined],
    ['http://h/apix', undefined],
  ])('with stripPrefix, %p is forwarded as %p', (url, target) => {
    expect(mountPrefix('/api', true).forwardedTarget(url)).toBe(target)
  })

  test('stripPrefix without a prefix strips nothing', () => {
    const mount = mountPrefix('/', true)
    expect(mount.stripPrefix).toBe(false)
    expect(mount.forwardedTarget('http://h/a')).toBeUndefined()
  })

  test.each(['api', '/api/*', '/users/:id', '/a?b', '/a#b', '/a b', '//api', '/a//b'])(
    'refuses %p, naming the prefix option',
    (prefix) => {
      let error: unknown
      try {
        mountPrefix(prefix)
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(ModuleConfigError)
      expect((error as ModuleConfigError).directive).toBe('prefix')
      expect((error as ModuleConfigError).message).toStartWith(
        'prefix: expected a path such as "/api"',
      )
    },
  )
})
