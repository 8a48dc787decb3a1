import { describe, expect, test } from 'bun:test'
import { base64ToBytes, bytesToBase64, bytesToText, hexDump } from '../../../hub/src/lib/base64.ts'

describe('base64', () => {
  test('round-trips every byte value', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i)
    expect(base64ToBytes(bytesToBase64(bytes))).toEqual(bytes)
  })

  test('accepts URL-safe alphabet, missing padding and line breaks', () => {
    const std = Buffer.from([0xfb, 0xff, 0xfe, 0x41]).toString('base64')
    const urlSafe = std.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
    expect(base64ToBytes(urlSafe)).toEqual(new Uint8Array([0xfb, 0xff, 0xfe, 0x41]))
    expect(new TextDecoder().decode(base64ToBytes('aGVs\nbG8='))).toBe('hello')
  })

  test('encodes large bodies without overflowing the call stack', () => {
    const big = new Uint8Array(1_500_000).fill(7)
    expect(bytesToBase64(big)).toBe(Buffer.from(big).toString('base64'))
  })

  test.each(['%%%', 'abcde', '===='])('refuses %p', (b64) => {
    expect(() => base64ToBytes(b64)).toThrow('not valid base64')
  })

  test('decodes an empty body to no bytes', () => {
    expect(base64ToBytes('').length).toBe(0)
  })
})

describe('bytesToText', () => {
  test('UTF-8 text, including tabs, newlines and non-ASCII', () => {
    expect(bytesToText(new TextEncoder().encode('a\tb\r\nprix: 5 €, 日本'))).toBe('a\tb\r\nprix: 5 €, 日本')
  })

  test('invalid UTF-8 is binary', () => {
    expect(bytesToText(new Uint8Array([0xc3, 0x28]))).toBeUndefined()
  })

  test('control characters (a NUL, a PNG signature) mean binary', () => {
    expect(bytesToText(new Uint8Array([0x61, 0x00, 0x62]))).toBeUndefined()
    expect(bytesToText(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBeUndefined()
  })
})

describe('hexDump', () => {
  test('offset, 16 bytes in two groups, printable ASCII', () => {
    const bytes = new TextEncoder().encode('Hello, hub!\n\u0001ABCDEFGH')
    expect(hexDump(bytes).split('\n')).toEqual([
      '00000000  48 65 6c 6c 6f 2c 20 68  75 62 21 0a 01 41 42 43  |Hello, hub!..ABC|',
      '00000010  44 45 46 47 48                                    |DEFGH|',
    ])
  })

  test('stops at maxBytes', () => {
    expect(hexDump(new Uint8Array(100), 32).split('\n')).toHaveLength(2)
  })
})
