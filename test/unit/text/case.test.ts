import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { lowerCase, upperCase } from '../../../src/text/case.ts'

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
