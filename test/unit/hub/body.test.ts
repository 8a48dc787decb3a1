import { describe, expect, test } from 'bun:test'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { canonicalHeaderName, classifyBytes, decodeBody, diffBodies, headerValue } from '../../../hub/src/lib/body.ts'
import { isContainer } from '../../../hub/src/lib/json-tree.ts'
import { canonicalHeaders, diffDocument } from '../../../hub/src/lib/request-view.ts'

const enc = (s: string) => new TextEncoder().encode(s)
const b64 = (x: string | Uint8Array) => Buffer.from(x).toString('base64')

describe('classifyBytes', () => {
  test.each([
    ['', 'empty'],
    ['{"a":1}', 'json'],
    ['  [1,2]', 'json'],
    ['42', 'json'],
    ['"s"', 'json'],
    ['null', 'json'],
    ['{"a":', 'text'],
    ['hello', 'text'],
    ['<html></html>', 'text'],
  ])('%p is %p', (text, kind) => {
    expect(classifyBytes(enc(text)).kind).toBe(kind as never)
  })

  test('integers past 2^53 keep their digits, as the API compared them; shown and copied as they came', () => {
    const body = classifyBytes(enc('{"id":9007199254740993,"n":1}'))
    expect(body.kind).toBe('json')
    const value = (body as { value: Record<string, unknown> }).value
    expect(isContainer(value.id)).toBe(false)
    expect(JSON.stringify(value)).toBe('{"id":9007199254740993,"n":1}')
  })

  test('bytes that are not UTF-8 text are binary', () => {
    expect(classifyBytes(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])).kind).toBe('binary')
  })
})

describe('decodeBody', () => {
  test('undoes gzip and deflate Content-Encoding', async () => {
    const json = '{"compressed":true}'
    const gz = await decodeBody(b64(gzipSync(json)), { 'content-encoding': ['gzip'] })
    expect(gz).toMatchObject({ kind: 'json', value: { compressed: true } })
    const df = await decodeBody(b64(deflateSync(json)), { 'Content-Encoding': ['deflate'] })
    expect(df).toMatchObject({ kind: 'json', value: { compressed: true } })
  })

  test('a coding the browser cannot undo (br) is its compressed bytes, and says which', async () => {
    const br = new Uint8Array(brotliCompressSync('{"a":1}'))
    expect(await decodeBody(b64(br), { 'Content-Encoding': ['br'] })).toEqual({ kind: 'binary', bytes: br, encoding: 'br' })
    expect(await decodeBody(b64('plain'), { 'Content-Encoding': ['identity'] })).toEqual({ kind: 'text', text: 'plain', size: 5 })
  })

  test('keeps the bytes when they are not really compressed', async () => {
    expect(await decodeBody(b64('plain'), { 'Content-Encoding': ['gzip'] })).toEqual({ kind: 'text', text: 'plain', size: 5 })
  })

  test('reports invalid base64 instead of throwing', async () => {
    expect((await decodeBody('%%%', {})).kind).toBe('invalid')
  })
})

describe('the diff document', () => {
  test('header names take the canonical form of diff pointers', () => {
    expect(canonicalHeaderName('content-type')).toBe('Content-Type')
    expect(canonicalHeaderName('X-REQUEST-ID')).toBe('X-Request-Id')
    expect(canonicalHeaderName('weird header')).toBe('weird header')
    expect(canonicalHeaders({ 'x-a': ['1'], 'X-A': ['2'], etag: ['e'] })).toEqual({ 'X-A': ['1', '2'], Etag: ['e'] })
    expect(headerValue({ 'content-encoding': ['br'] }, 'Content-Encoding')).toBe('br')
  })

  test('bodies are JSON only when both sides are JSON', () => {
    const json = classifyBytes(enc('{"a":1}'))
    const text = classifyBytes(enc('oops'))
    expect(diffBodies(json, json)).toEqual([
      { json: true, value: { a: 1 } },
      { json: true, value: { a: 1 } },
    ])
    expect(diffBodies(json, text)).toEqual([
      { json: false, text: '{"a":1}' },
      { json: false, text: 'oops' },
    ])
    // A binary body is said to be one, never shown as an empty text.
    const binary = classifyBytes(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]))
    expect(diffBodies(binary, text)[0]).toEqual({ json: false, text: '(binary, 6 bytes)' })
  })

  test('is {status, headers, body}', () => {
    const res = { status_code: 201, headers: { 'content-type': ['application/json'] }, body: '', latency_ms: 1, created_at: '' }
    expect(diffDocument(res, { json: true, value: [1] })).toEqual({
      status: 201,
      headers: { 'Content-Type': ['application/json'] },
      body: [1],
    })
  })
})
