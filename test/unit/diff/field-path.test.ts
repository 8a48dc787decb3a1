import { describe, expect, test } from 'bun:test'
import {
  FieldMatcher,
  FieldPathError,
  fieldPathProblem,
  parseFieldPath,
} from '../../../src/diff/index.ts'

/** Whether `pattern` names `path` (reference tokens from the document root). */
function names(pattern: string, path: string[]): boolean {
  const matcher = new FieldMatcher([parseFieldPath(pattern)])
  let state = matcher.start
  for (let i = 0; i < path.length; i++) {
    state = matcher.step(state, path[i]!, i === 1 && path[0] === 'headers')
  }
  return state.matched
}

describe('field path notation', () => {
  test.each([
    // literal segments
    ['body.user.email', ['body', 'user', 'email'], true],
    ['body.user.email', ['body', 'user'], false],
    ['body.user.email', ['body', 'user', 'email', 'x'], false],
    ['body.items.0.id', ['body', 'items', '0', 'id'], true],
    ['body.items.0.id', ['body', 'items', '1', 'id'], false],
    ['status', ['status'], true],
    // `*` and `#`: any one key or index
    ['body.items.*.id', ['body', 'items', '7', 'id'], true],
    ['body.items.#.id', ['body', 'items', '7', 'id'], true],
    ['body.*.id', ['body', 'a', 'b', 'id'], false],
    ['body.#', ['body', 'anything'], true],
    // globs inside a segment
    ['body.user_*', ['body', 'user_name'], true],
    ['body.user_*', ['body', 'user_'], true],
    ['body.user_*', ['body', 'username'], false],
    ['body.v?', ['body', 'v1'], true],
    ['body.v?', ['body', 'v10'], false],
    ['body.v?', ['body', 'v'], false],
    ['body.*_at', ['body', 'updated_at'], true],
    ['body.a*b*c', ['body', 'axxbyyc'], true],
    ['body.a*b*c', ['body', 'axxbyy'], false],
    ['body.?', ['body', '😀'], true],
    // `**`: any depth, including none
    ['body.**.updated_at', ['body', 'updated_at'], true],
    ['body.**.updated_at', ['body', 'a', 'b', '3', 'updated_at'], true],
    ['body.**.updated_at', ['body', 'a', 'updated_at_x'], false],
    ['body.**', ['body'], true],
    ['body.**', ['body', 'a', 'b'], true],
    ['body.**.a.**.b', ['body', 'x', 'a', 'y', 'z', 'b'], true],
    ['body.**.a.**.b', ['body', 'x', 'b'], false],
    // escapes
    ['body.a\\.b', ['body', 'a.b'], true],
    ['body.a\\.b', ['body', 'a', 'b'], false],
    ['body.\\*', ['body', '*'], true],
    ['body.\\*', ['body', 'x'], false],
    ['body.\\#', ['body', '#'], true],
    ['body.\\#', ['body', 'x'], false],
    ['body.a\\\\b', ['body', 'a\\b'], true],
    ['body.what\\?', ['body', 'what?'], true],
    ['body.what\\?', ['body', 'whatX'], false],
    // header names are case-insensitive, body keys are not
    ['headers.X-Trace', ['headers', 'X-Trace'], true],
    ['headers.x-trace', ['headers', 'X-Trace'], true],
    ['headers.X-TRACE', ['headers', 'x-trace'], true],
    ['headers.x-*', ['headers', 'X-Trace'], true],
    ['headers.*', ['headers', 'Content-Type'], true],
    ['headers.Set-Cookie.0', ['headers', 'set-cookie', '0'], true],
    ['body.Email', ['body', 'email'], false],
    ['body.headers.X', ['body', 'headers', 'x'], false],
    // keys with regex and pointer characters are plain text
    ['body.a/b', ['body', 'a/b'], true],
    ['body.~0', ['body', '~0'], true],
    ['body.(x)+[y]', ['body', '(x)+[y]'], true],
    ['body.é', ['body', 'é'], true],
  ])('%p names %j: %p', (pattern, path, expected) => {
    expect(names(pattern, path)).toBe(expected)
  })

  test.each([
    ['', 'empty segment'],
    ['body..x', 'empty segment'],
    ['body.', 'empty segment'],
    ['.body', 'empty segment'],
    ['body.x\\', 'lone'],
    ['user.email', 'must start with'],
    ['Body.x', 'must start with'],
    ['**.password', 'must start with'],
    ['status.code', '"status" has no fields'],
  ])('rejects %p', (path, reason) => {
    expect(() => parseFieldPath(path)).toThrow(FieldPathError)
    expect(fieldPathProblem(path)).toContain(reason)
  })

  test.each(['status', 'headers', 'body', 'headers.*', 'body.**', 'body.a\\.b.#.c?d'])(
    'accepts %p',
    (path) => {
      expect(fieldPathProblem(path)).toBeUndefined()
    },
  )

  test('a matcher holds many paths at once and keeps its states', () => {
    const matcher = new FieldMatcher(['body.a.b', 'body.**.c', 'headers.X'].map(parseFieldPath))
    const body = matcher.step(matcher.start, 'body')
    const a = matcher.step(body, 'a')
    expect(matcher.step(a, 'b').matched).toBe(true)
    expect(matcher.step(a, 'c').matched).toBe(true)
    expect(matcher.step(a, 'd').matched).toBe(false)
    expect(matcher.step(a, 'd').dead).toBe(false)
    // the same transition twice gives the same interned state
    expect(matcher.step(body, 'a')).toBe(a)
    expect(matcher.step(matcher.start, 'status').dead).toBe(true)
  })
})
