import { describe, expect, test } from 'bun:test'
import { textString, textValue } from '../../../src/log/text-format.ts'

describe('text format values', () => {
  test.each([
    ['plain', 'plain'],
    ['request.id', 'request.id'],
    ['/api/items?x=1', '"/api/items?x=1"'],
    ['', '""'],
    ['two words', '"two words"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['a=b', '"a=b"'],
    ['line\nbreak', '"line\\nbreak"'],
    ['tab\there', '"tab\\there"'],
    ['back\\slash', 'back\\slash'],
    ['bell\u0007', '"bell\\u0007"'],
    ['zero\u200bwidth', '"zero\u200bwidth"'],
    ['naïve', 'naïve'],
  ])('textString(%p) = %s', (input, expected) => {
    expect(textString(input)).toBe(expected)
  })

  test.each<[string, unknown, string]>([
    ['integer', 200, '200'],
    ['float', 1.25, '1.25'],
    ['NaN', NaN, 'NaN'],
    ['boolean', false, 'false'],
    ['bigint', 12345678901234567890n, '12345678901234567890'],
    ['null', null, 'null'],
    ['date', new Date('2026-11-21T10:00:00Z'), '2026-11-21T10:00:00.000Z'],
    ['invalid date', new Date('nope'), '"Invalid Date"'],
    ['array', [1, 'a'], '"[1,\\"a\\"]"'],
    ['object', { a: { b: 1 } }, '"{\\"a\\":{\\"b\\":1}}"'],
    ['empty object', {}, '{}'],
    ['bytes', new Uint8Array(3), '"[3 bytes]"'],
    ['symbol', Symbol('s'), 'Symbol(s)'],
    ['function', function named() {}, '"[function named]"'],
  ])('textValue of %s', (_, value, expected) => {
    expect(textValue(value)).toBe(expected)
  })
})
