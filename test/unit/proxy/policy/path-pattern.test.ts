import { describe, expect, test } from 'bun:test'
import {
  compilePathPattern,
  mergeSlashes,
  PathPatternError,
  type PathPatternKind,
} from '../../../../src/proxy/policy/path-pattern.ts'

describe('compilePathPattern', () => {
  // The wildcard table (docs/proxy.md "Which requests are shadowed"): which row
  // each form falls in.
  const kinds: [string, PathPatternKind][] = [
    ['*', 'any'],
    ['/api/users', 'exact'],
    ['/', 'exact'],
    ['/api/*', 'prefix'],
    ['/api*', 'prefix'],
    ['*.json', 'suffix'],
    ['*/health', 'suffix'],
    ['*admin*', 'substring'],
    ['*/internal/*', 'substring'],
    ['**', 'substring'],
    ['/users/*/orders', 'segment'],
    ['/files/*.txt', 'segment'],
    ['/api/**', 'segment'],
    ['/a/*/b/*', 'segment'],
    ['*/v*/users', 'segment'],
    ['*/a/*/b*', 'segment'],
  ]
  for (const [pattern, kind] of kinds) {
    test(`classifies "${pattern}" as ${kind}`, () => {
      expect(compilePathPattern(pattern).kind).toBe(kind)
    })
  }

  const rejected: [string, string][] = [
    ['', 'a non-empty pattern'],
    ['api/*', 'a pattern that starts with "/" or "*"'],
    ['users', 'a pattern that starts with "/" or "*"'],
    ['/search?q=*', 'a pattern without "?" (the query string is never matched)'],
    ['*a*b*', 'a "/" after the leading "*" of a segment pattern'],
    ['*x/*/y', 'a "/" after the leading "*" of a segment pattern'],
    ['***', 'a "/" after the leading "*" of a segment pattern'],
  ]
  for (const [pattern, expected] of rejected) {
    test(`rejects "${pattern}" because it could never match`, () => {
      const error = (() => {
        try {
          compilePathPattern(pattern)
        } catch (caught) {
          return caught
        }
      })()
      expect(error).toBeInstanceOf(PathPatternError)
      expect(error).toMatchObject({ code: 'invalid-path-pattern', pattern, expected })
    })
  }

  test('keeps doubled slashes only for patterns that contain "//"', () => {
    expect(compilePathPattern('/a//b').keepsDoubledSlashes).toBe(true)
    expect(compilePathPattern('//*').keepsDoubledSlashes).toBe(true)
    expect(compilePathPattern('/a/b').keepsDoubledSlashes).toBe(false)
    expect(compilePathPattern('*').keepsDoubledSlashes).toBe(false)
  })

  test('lower-cases the pattern so that a lower-cased path matches', () => {
    expect(compilePathPattern('/API/Users').test('/api/users')).toBe(true)
    expect(compilePathPattern('/Files/*.TXT').test('/files/a.txt')).toBe(true)
  })

  test('treats regular-expression characters in segment patterns literally', () => {
    const pattern = compilePathPattern('/a.b/*/(c)+[d]$')
    expect(pattern.test('/a.b/x/(c)+[d]$')).toBe(true)
    expect(pattern.test('/axb/x/cc[d]')).toBe(false)
  })

  test('returns a frozen pattern keeping the source as written', () => {
    const pattern = compilePathPattern('/API/*')
    expect(pattern.source).toBe('/API/*')
    expect(Object.isFrozen(pattern)).toBe(true)
  })
})

describe('mergeSlashes', () => {
  const cases: [string, string][] = [
    ['/a/b', '/a/b'],
    ['//a', '/a'],
    ['/a//b///c', '/a/b/c'],
    ['/a/b//', '/a/b/'],
    ['////', '/'],
    ['', ''],
  ]
  for (const [path, merged] of cases) {
    test(`merges "${path}" into "${merged}"`, () => {
      expect(mergeSlashes(path)).toBe(merged)
    })
  }
})
