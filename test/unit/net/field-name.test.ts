import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { lowerCaseFieldName } from '../../../src/net/field-name.ts'

/** A name in a random mix of cases. */
const anyCase = (name: string, upper: boolean[]) => [...name].map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c)).join('')

describe('lowerCaseFieldName', () => {
  test('well-known names in any case read as their lower-case form', () => {
    expect(lowerCaseFieldName('Content-Type', 0, 12)).toBe('content-type')
    expect(lowerCaseFieldName('xHOSTy', 1, 5)).toBe('host')
    expect(lowerCaseFieldName('X-Request-ID: 1', 0, 12)).toBe('x-request-id')
  })

  test('a name of a known length that is not the known one is read as it stands', () => {
    // Only letters have another case: a CR is not a `-` (0x0d + 0x20), a control not a digit.
    expect(lowerCaseFieldName('Content\rLength', 0, 14)).toBe('content\rlength')
    expect(lowerCaseFieldName('X\rREAL-IP', 0, 9)).toBe('x\rreal-ip')
    expect(lowerCaseFieldName('HOS-', 0, 4)).toBe('hos-')
    expect(lowerCaseFieldName('Dat\u00c5', 0, 4)).toBe('dat\u00e5')
    // Not a known name's spelling, yet it lowers to one: the Kelvin sign lowers to k.
    expect(lowerCaseFieldName('Coo\u212aie', 0, 6)).toBe('cookie')
  })

  test('gives text.slice(start, end).toLowerCase() for any text and range', () => {
    const known = fc
      .tuple(fc.constantFrom('content-type', 'host', 'date', 'x-request-id', 'set-cookie', 'via', 'accept'), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }))
      .map(([name, upper]) => anyCase(name, upper))
    // Near misses: a known name with one character changed, in a random case.
    const nearMiss = fc
      .tuple(fc.constantFrom('content-length', 'host', 'date', 'etag'), fc.nat(), fc.integer({ min: 0, max: 255 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }))
      .map(([name, at, code, upper]) => {
        const i = at % name.length
        return anyCase(name.slice(0, i) + String.fromCharCode(code) + name.slice(i + 1), upper)
      })
    const text = fc.tuple(fc.string({ unit: 'binary', maxLength: 6 }), fc.oneof(known, nearMiss, fc.string({ unit: 'binary', maxLength: 20 })), fc.string({ maxLength: 6 }))
    fc.assert(
      fc.property(text, ([before, name, after]) => {
        const all = before + name + after
        const start = before.length
        const end = start + name.length
        expect(lowerCaseFieldName(all, start, end)).toBe(all.slice(start, end).toLowerCase())
      }),
      { numRuns: 3000 },
    )
  })
})
