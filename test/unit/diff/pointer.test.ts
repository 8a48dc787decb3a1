import { describe, expect, test } from 'bun:test'
import { escapePointerSegment, formatPointer, parsePointer } from '../../../src/diff/index.ts'

// RFC 6901 section 5: the example document's keys and their pointers.
const RFC_6901_EXAMPLES: Array<[string[], string]> = [
  [[], ''],
  [['foo'], '/foo'],
  [['foo', '0'], '/foo/0'],
  [[''], '/'],
  [['a/b'], '/a~1b'],
  [['c%d'], '/c%d'],
  [['e^f'], '/e^f'],
  [['g|h'], '/g|h'],
  [['i\\j'], '/i\\j'],
  [['k"l'], '/k"l'],
  [[' '], '/ '],
  [['m~n'], '/m~0n'],
]

describe('JSON Pointer (RFC 6901)', () => {
  test.each(RFC_6901_EXAMPLES)('formats %j as %p', (keys, pointer) => {
    expect(formatPointer(keys)).toBe(pointer)
  })

  test.each(RFC_6901_EXAMPLES)('parses back %j from %p', (keys, pointer) => {
    expect(parsePointer(pointer)).toEqual(keys)
  })

  test.each([
    ['~1', '~01'],
    ['/~', '~1~0'],
    ['~/~/', '~0~1~0~1'],
    ['😀/é', '😀~1é'],
  ])('escapes %p as %p, ~ before /', (key, escaped) => {
    expect(escapePointerSegment(key)).toBe(escaped)
    expect(parsePointer('/' + escaped)).toEqual([key])
  })

  test('writes array indices as decimal tokens', () => {
    expect(formatPointer(['body', 'items', 12, 'price'])).toBe('/body/items/12/price')
  })

  test('rejects a non-empty pointer that does not start with "/"', () => {
    expect(() => parsePointer('foo')).toThrow(SyntaxError)
  })
})
