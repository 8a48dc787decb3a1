import { describe, expect, test } from 'bun:test'
import zlib from 'node:zlib'
import { charsetOf, decodeContent, decodeText } from '../../../src/diff/index.ts'

const text = '{"message":"olá, 世界"}'
const bytes = new TextEncoder().encode(text)
const decode = (body: Uint8Array, encoding: string[] | undefined, max = 1 << 20) => {
  const result = decodeContent(body, encoding, max)
  return result.ok ? new TextDecoder().decode(result.bytes) : result
}

describe('decodeContent (RFC 9110 section 8.4)', () => {
  test.each([
    ['gzip', zlib.gzipSync(bytes)],
    ['x-gzip', zlib.gzipSync(bytes)],
    ['deflate', zlib.deflateSync(bytes)],
    ['deflate', zlib.deflateRawSync(bytes)],
    ['br', zlib.brotliCompressSync(bytes)],
    ['zstd', zlib.zstdCompressSync(bytes)],
    ['identity', bytes],
    ['GZIP', zlib.gzipSync(bytes)],
  ])('decodes %s', (coding, body) => {
    expect(decode(new Uint8Array(body), [coding])).toBe(text)
  })

  test('undoes several codings, last applied first', () => {
    const body = zlib.brotliCompressSync(zlib.gzipSync(bytes))
    expect(decode(new Uint8Array(body), ['gzip, br'])).toBe(text)
    expect(decode(new Uint8Array(body), ['gzip', 'br'])).toBe(text)
  })

  test('no Content-Encoding gives the bytes as they are', () => {
    const result = decodeContent(bytes, undefined, 10)
    expect(result.ok && result.bytes).toBe(bytes)
  })

  test('reports an unknown coding', () => {
    expect(decode(bytes, ['compress'])).toMatchObject({ ok: false, tooLarge: false })
  })

  test('reports corrupt data', () => {
    expect(decode(bytes, ['gzip'])).toMatchObject({ ok: false, tooLarge: false })
  })

  test('stops a decompression bomb at the cap', () => {
    const bomb = zlib.gzipSync(new Uint8Array(50_000_000))
    expect(bomb.byteLength).toBeLessThan(100_000)
    expect(decode(new Uint8Array(bomb), ['gzip'], 1_000_000)).toMatchObject({
      ok: false,
      tooLarge: true,
    })
  })
})

describe('charset', () => {
  test.each([
    [undefined, 'utf-8'],
    [['application/json'], 'utf-8'],
    [['text/plain; charset=ISO-8859-1'], 'iso-8859-1'],
    [['text/plain;charset="windows-1252"'], 'windows-1252'],
  ])('%j has charset %p', (contentType, charset) => {
    expect(charsetOf(contentType)).toBe(charset)
  })

  test('decodes latin-1 text', () => {
    expect(decodeText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 'iso-8859-1')).toBe('café')
  })

  test('binary content is not text', () => {
    expect(decodeText(new Uint8Array([0xff, 0xfe, 0x00, 0xc3]), 'utf-8')).toBeUndefined()
  })

  test('an unknown charset reads as UTF-8', () => {
    expect(decodeText(bytes, 'no-such-charset')).toBe(text)
  })

  test('drops a byte order mark', () => {
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x31]), 'utf-8')).toBe('1')
  })
})
