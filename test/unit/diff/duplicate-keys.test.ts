import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { hasDuplicateKeys } from '../../../src/diff/duplicate-keys.ts'

/** A JSON value as text, and whether any object in it repeats a key. */
type Built = { readonly text: string; readonly duplicate: boolean }

const key = fc.constantFrom('a', 'b', 'token', 'a"b', 'ü', '\\u0061', '{', ',', '[x]', '')
/** What a key reads as once parsed: `\u0061` is `a`. */
const decoded = (k: string) => JSON.parse(`"${k === 'a"b' ? 'a\\"b' : k}"`) as string
const escapedText = (k: string) => `"${k === 'a"b' ? 'a\\"b' : k}"`

const value: fc.Memo<Built> = fc.memo((depth) =>
  depth <= 1
    ? fc.oneof(
        fc.constantFrom('1', 'null', 'true', '"x"', '"{\\"a\\":1,\\"a\\":2}"', '"a,b"').map((text) => ({ text, duplicate: false })),
      )
    : fc.oneof(
        value(depth - 1),
        fc.array(value(depth - 1), { maxLength: 3 }).map((items) => ({ text: `[${items.map((i) => i.text).join(',')}]`, duplicate: items.some((i) => i.duplicate) })),
        fc.array(fc.tuple(key, value(depth - 1)), { maxLength: 4 }).map((members) => {
          const keys = members.map(([k]) => decoded(k))
          return {
            text: `{${members.map(([k, v]) => `${escapedText(k)}:${v.text}`).join(', ')}}`,
            duplicate: new Set(keys).size < keys.length || members.some(([, v]) => v.duplicate),
          }
        }),
      ),
)

describe('hasDuplicateKeys', () => {
  test.each([
    ['{"user":{"token":"S"},"user":{"name":"a"}}', true],
    ['{"token":"S","token":"[REDACTED]"}', true],
    ['{"a":1,"\\u0061":2}', true],
    ['[{"a":1},{"a":2}]', false],
    ['{"a":{"a":{"a":1}}}', false],
    ['{"a":"a","b":"a"}', false],
    ['{"k":"{\\"k\\":1,\\"k\\":2}"}', false],
  ])('%s: %p', (text, expected) => {
    JSON.parse(text)
    expect(hasDuplicateKeys(text)).toBe(expected)
  })

  test('says so exactly when an object, at any depth, repeats a key (as parsed)', () => {
    fc.assert(
      fc.property(value(4), ({ text, duplicate }) => {
        JSON.parse(text)
        expect(hasDuplicateKeys(text)).toBe(duplicate)
      }),
    )
  })
})
