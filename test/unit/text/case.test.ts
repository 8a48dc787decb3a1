import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { lowerCase, lowersTo, upperCase } from '../../../src/text/case.ts'

describe('lowerCase and upperCase', () => {
  test('give what toLowerCase and toUpperCase give, for any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), (text) => {
        expect(lowerCase(text)).toBe(text.toLowerCase())
        expect(upperCase(text)).toBe(text.toUpperCase())
      }),
      { numRuns: 2000 },
    )
  })

  // The characters whose case changes outside A-Z: each is caught by the guard, not passed as it is.
  test.each(['ß', 'µ', 'ÿ', 'À', 'Þ', 'İ', 'ǅ', 'Σ', 'ﬀ'])('%s is changed as the built-ins change it', (text) => {
    expect(lowerCase(text)).toBe(text.toLowerCase())
    expect(upperCase(text)).toBe(text.toUpperCase())
  })

  test('a string with nothing to change comes back as it is', () => {
    expect(lowerCase('/api/v1/items?x=1')).toBe('/api/v1/items?x=1')
    expect(upperCase('GET')).toBe('GET')
  })
})

describe('lowersTo', () => {
  test("says whether text.toLowerCase() is the other string, for any pair", () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('Content-Type', 'CONTENT-TYPE', 'content-type', 'Content-Typf', 'İ', 'K'))
    fc.assert(
      fc.property(text, fc.oneof(text, text.map((t) => t.toLowerCase())), (a, b) => {
        expect(lowersTo(a, b)).toBe(a.toLowerCase() === b)
        expect(lowersTo(a, a.toLowerCase())).toBe(true)
      }),
      { numRuns: 3000 },
    )
  })

  test('folds only A-Z among ASCII: a @ is not a backtick, a [ not a {', () => {
    expect(lowersTo('@', '`')).toBe(false)
    expect(lowersTo('[', '{')).toBe(false)
    expect(lowersTo('X-Request-ID', 'x-request-id')).toBe(true)
  })
})
