import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { storableJson, storableJsonText } from '../../../src/store/rows.ts'

/** Every string of a JSON value, keys included, has no NUL and no lone surrogate: what jsonb can hold. */
function storable(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed() && !value.includes('\0')
  if (Array.isArray(value)) return value.every(storable)
  if (value !== null && typeof value === 'object') return Object.entries(value).every(([k, v]) => storable(k) && storable(v))
  return true
}

/** Strings rich in what jsonb refuses and in what could pass for an escape. */
const text = fc
  .array(
    fc.oneof(
      fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\u0000', '\\', '\\u0000', '\\ud800', 'u', '"', '😀'),
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    ),
    { maxLength: 8 },
  )
  .map((units) => units.join(''))

const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(text, tie('value'), { maxKeys: 3 }),
})).value

describe('storableJson', () => {
  test('a NUL in a string or a key becomes U+FFFD, which jsonb can hold', () => {
    expect(storableJson([{ op: 'replace', path: '/body/a', value: 'x\u0000y' }])).toEqual([{ op: 'replace', path: '/body/a', value: 'x\ufffdy' }])
    expect(storableJson<Record<string, string[]>>({ 'k\u0000': ['\u0000'] })).toEqual({ 'k\ufffd': ['\ufffd'] })
  })

  test('a lone surrogate in a string or a key becomes U+FFFD; a pair is kept', () => {
    expect(storableJson<unknown>({ a: '\ud800', '\udc00k': ['x\udbffy'], pair: '😀' })).toEqual({ a: '\ufffd', '\ufffdk': ['x\ufffdy'], pair: '😀' })
  })

  test('text that only spells an escape is kept, and a value without NUL is the same object', () => {
    const literal = { a: '\\u0000', b: '\\\u0000', c: '\\ud800' }
    expect(storableJson(literal)).toEqual({ a: '\\u0000', b: '\\\ufffd', c: '\\ud800' })
    const plain = { a: 'x' }
    expect(storableJson(plain)).toBe(plain)
  })

  test('property: the result is storable, and equal to the input wherever the input was', () => {
    fc.assert(
      fc.property(json, (value) => {
        const stored = storableJson(value)
        expect(storable(stored)).toBe(true)
        if (storable(value)) expect(stored).toEqual(value)
        // The same shape: only characters change, one for one.
        expect(JSON.stringify(stored).length).toBeLessThanOrEqual(JSON.stringify(value).length)
      }),
      { numRuns: 2000 },
    )
  })
})

describe('storableJsonText', () => {
  test('property: the text of storableJson, which parses to the same value', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = storableJsonText(value)
        // Equal as values: a key that became another key's twin is one key in both (the later value kept).
        expect(JSON.parse(text)).toEqual(storableJson(value))
        if (storable(value)) expect(text).toBe(JSON.stringify(value))
      }),
      { numRuns: 2000 },
    )
  })
})
