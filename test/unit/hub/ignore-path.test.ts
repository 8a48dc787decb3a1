import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { ignorePathOf } from '../../../hub/src/lib/ignore-path.ts'
import { FieldMatcher, formatPointer, parseFieldPath } from '../../../src/diff/index.ts'
import { generalisedPath } from '../../../src/insights/index.ts'

/** Whether the field path names the concrete pointer, as the diff engine reads `ignored_fields`. */
function names(fieldPath: string, tokens: readonly string[]): boolean {
  const matcher = new FieldMatcher([parseFieldPath(fieldPath)])
  let state = matcher.start
  tokens.forEach((token, i) => {
    state = matcher.step(state, token, i === 1 && tokens[0] === 'headers')
  })
  return state.matched
}

describe('ignorePathOf', () => {
  test.each([
    ['/body/items/*/updated_at', 'body.items.#.updated_at'],
    ['/body/stock/{key}/reserved', 'body.stock.*.reserved'],
    ['/body/generated_at', 'body.generated_at'],
    ['/body', 'body'],
    ['/status', 'status'],
    ['/headers/X-Trace-Id', 'headers.X-Trace-Id'],
    ['/headers', 'headers'],
    // RFC 6901 escapes undone, the notation's own syntax escaped.
    ['/body/a~1b', 'body.a/b'],
    ['/body/a~0b', 'body.a~b'],
    ['/body/~01', 'body.~1'],
    ['/body/version.major', 'body.version\\.major'],
    ['/body/what?/a*b/#/back\\slash', 'body.what\\?.a\\*b.\\#.back\\\\slash'],
    ['/headers/X.Dotted', 'headers.X\\.Dotted'],
    ['/headers/X-Service-Version/*', 'headers.X-Service-Version'],
    ['/body/**', 'body.\\*\\*'],
  ])('%s → %s', (pointer, expected) => {
    expect(ignorePathOf(pointer)).toBe(expected)
    expect(() => parseFieldPath(expected)).not.toThrow()
  })

  test.each([
    ['', 'the whole document'],
    ['body', 'not a pointer'],
    ['/trailers/x', 'an unknown root'],
    ['/status/code', 'below status'],
    ['/headers/{key}', 'a generalised header name: headers.* would ignore every header'],
    ['/headers/*', 'an index where a header name belongs'],
    ['/body//x', 'an empty key'],
  ])('%s: none (%s)', (pointer) => {
    expect(ignorePathOf(pointer)).toBeUndefined()
  })

  test('the entry of a generalised pointer names the concrete pointer it came from', () => {
    const key = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('*', '#', '**', '{key}', '-', '.', '~', '/', '\\', 'a.b', 'sku-15028', '3f2b8c1e-9d4a-4e6b-8f0a-1c2d3e4f5a6b'),
      fc.nat(40).map(String),
    )
    fc.assert(
      fc.property(fc.array(key, { maxLength: 6 }), (keys) => {
        const tokens = ['body', ...keys]
        const entry = ignorePathOf(generalisedPath(formatPointer(tokens)))
        if (keys.includes('')) return entry === undefined
        return entry !== undefined && names(entry, tokens)
      }),
    )
  })

  test('a header keeps its name, matched whatever its case', () => {
    const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9.-]{0,20}$/)
    fc.assert(
      fc.property(name, (header) => {
        const entry = ignorePathOf(generalisedPath(formatPointer(['headers', header])))
        // A name that reads as an identifier is generalised away: no entry rather than every header.
        if (entry === undefined) return generalisedPath(`/headers/${header}`) === '/headers/{key}'
        return names(entry, ['headers', header.toUpperCase()]) && !names(entry, ['headers', `${header}x`])
      }),
    )
  })
})
