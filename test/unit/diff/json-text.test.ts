import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { jsonText, stringifyJson } from '../../../src/diff/json-text.ts'
import { json } from './json-arbitraries.ts'

describe('iterative JSON text', () => {
  test('writes what JSON.stringify writes', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(jsonText(value)).toBe(JSON.stringify(value))
      }),
      { numRuns: 300 },
    )
  })

  test('with sortKeys, key order does not change the text', () => {
    expect(jsonText({ b: 1, a: { d: [1, { f: 1, e: 2 }], c: null } }, true)).toBe(
      '{"a":{"c":null,"d":[1,{"e":2,"f":1}]},"b":1}',
    )
  })

  test('skips undefined members and writes undefined elements as null, as JSON.stringify does', () => {
    expect(jsonText({ a: undefined, b: [undefined, () => 1] })).toBe('{"b":[null,null]}')
  })

  test('serialises deep nesting quickly, where JSON.stringify slows down and then throws', () => {
    let value: unknown = 0
    for (let i = 0; i < 300_000; i++) value = i % 2 === 0 ? [value] : { k: value }
    const started = performance.now()
    const text = stringifyJson(value)
    expect(performance.now() - started).toBeLessThan(2000)
    expect(text.length).toBe(150_000 * 2 + 150_000 * 6 + 1)
    expect(text.startsWith('{"k":[{"k":[')).toBe(true)
  })

  test('ordinary values take the native path and give the same text', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(stringifyJson(value)).toBe(JSON.stringify(value))
      }),
      { numRuns: 100 },
    )
  })
})
