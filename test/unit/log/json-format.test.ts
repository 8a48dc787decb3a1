import { describe, expect, test } from 'bun:test'
import { jsonValue } from '../../../src/log/json-format.ts'

describe('json format values', () => {
  test.each<[string, unknown, string]>([
    ['string', 'a "b"\n', '"a \\"b\\"\\n"'],
    ['integer', 200, '200'],
    ['NaN', NaN, '"NaN"'],
    ['Infinity', Infinity, '"Infinity"'],
    ['bigint', 12345678901234567890n, '"12345678901234567890"'],
    ['boolean', true, 'true'],
    ['null', null, 'null'],
    ['date', new Date('2026-11-21T10:00:00Z'), '"2026-11-21T10:00:00.000Z"'],
    ['array', [1, { a: null }], '[1,{"a":null}]'],
    ['bytes', Buffer.from('secret body'), '"[11 bytes]"'],
    ['error', new RangeError('too big'), '"RangeError: too big"'],
    ['symbol', Symbol('s'), '"Symbol(s)"'],
  ])('jsonValue of %s', (_, value, expected) => {
    expect(jsonValue(value)).toBe(expected)
  })

  test('every value gives valid JSON', () => {
    const circular: Record<string, unknown> = {}
    circular.self = circular
    for (const value of [NaN, -Infinity, 1n, circular, new Map([[1, 2]]), () => 1, Symbol('x')]) {
      expect(() => JSON.parse(jsonValue(value))).not.toThrow()
    }
  })
})
