import { describe, expect, test } from 'bun:test'
import zlib from 'node:zlib'
import {
  compareResponses,
  DEFAULT_DIFF_CONFIG,
  type CaptureOptions,
  type CapturedResponse,
  type Comparison,
  type DiffConfig,
  type HeaderMap,
} from '../../../src/diff/index.ts'

const bytes = (text: string) => new TextEncoder().encode(text)
const response = (
  status: number,
  headers: HeaderMap,
  body: string | Uint8Array,
): CapturedResponse => ({
  status,
  headers,
  body: typeof body === 'string' ? bytes(body) : body,
})
const json = (value: unknown, headers: HeaderMap = {}) =>
  response(200, { 'Content-Type': ['application/json'], ...headers }, JSON.stringify(value))
const options = (
  diff: Partial<DiffConfig> = {},
  extra: Partial<CaptureOptions> = {},
): CaptureOptions => ({
  diff: { ...DEFAULT_DIFF_CONFIG, ...diff },
  redactedFields: [],
  ...extra,
})
const MATCH: Comparison = { kind: 'match' }

describe('compareResponses: the document {status, headers, body}', () => {
  test('identical responses match', () => {
    expect(compareResponses(json({ a: 1 }), json({ a: 1 }), options())).toEqual(MATCH)
  })

  test('a different status is a replace at /status', () => {
    const live = json({ a: 1 })
    const shadow = { ...json({ a: 1 }), status: 500 }
    expect(compareResponses(live, shadow, options())).toEqual({
      kind: 'diff',
      ops: [{ op: 'replace', path: '/status', value: 500 }],
    })
  })

  test('volatile headers never differ', () => {
    const live = json(
      { a: 1 },
      { Date: ['Mon'], 'X-Request-Id': ['1'], Server: ['a'], ETag: ['"1"'] },
    )
    const shadow = json(
      { a: 1 },
      {
        date: ['Tue'],
        'x-request-id': ['2'],
        server: ['b'],
        etag: ['"2"'],
        'Content-Length': ['9'],
      },
    )
    expect(compareResponses(live, shadow, options())).toEqual(MATCH)
  })

  test('header names are case-insensitive; pointers use the canonical name', () => {
    const live = response(200, { 'content-type': ['text/plain'], 'x-version': ['1'] }, 'x')
    const shadow = response(
      200,
      { 'Content-Type': ['text/plain'], 'X-VERSION': ['2'], 'x-new': ['y'] },
      'x',
    )
    expect(compareResponses(live, shadow, options())).toEqual({
      kind: 'diff',
      ops: [
        { op: 'replace', path: '/headers/X-Version/0', value: '2' },
        { op: 'add', path: '/headers/X-New', value: ['y'] },
      ],
    })
  })

  test('redacted headers are excluded: Set-Cookie never differs', () => {
    const live = json({}, { 'Set-Cookie': ['a=1'] })
    const shadow = json({}, { 'set-cookie': ['a=2', 'b=3'] })
    expect(compareResponses(live, shadow, options())).toEqual(MATCH)
    expect(compareResponses(json({}), shadow, options())).toEqual(MATCH)
  })

  test('JSON bodies are compared as JSON: key order and whitespace do not matter', () => {
    const live = response(200, {}, '{"a":1,"b":[1,2]}')
    const shadow = response(200, {}, '{ "b": [1, 2],\n  "a": 1 }')
    expect(compareResponses(live, shadow, options())).toEqual(MATCH)
  })

  test('JSON differences have pointers under /body', () => {
    expect(
      compareResponses(json({ items: [{ p: 1 }] }), json({ items: [{ p: 2 }] }), options()),
    ).toEqual({
      kind: 'diff',
      ops: [{ op: 'replace', path: '/body/items/0/p', value: 2 }],
    })
  })

  test('a differing text body is one replace at /body', () => {
    expect(
      compareResponses(response(200, {}, 'hello'), response(200, {}, 'hello world'), options()),
    ).toEqual({
      kind: 'diff',
      ops: [{ op: 'replace', path: '/body', value: 'hello world' }],
    })
  })

  test('JSON against text is compared as text', () => {
    expect(
      compareResponses(response(200, {}, '{"a":1}'), response(200, {}, '<html>'), options()),
    ).toEqual({
      kind: 'diff',
      ops: [{ op: 'replace', path: '/body', value: '<html>' }],
    })
  })

  test('binary bodies are compared by bytes', () => {
    const live = response(200, {}, new Uint8Array([0xff, 0x00, 0x80, 0x81]))
    const shadow = response(200, {}, new Uint8Array([0xff, 0x00, 0x80, 0x82]))
    const result = compareResponses(live, shadow, options())
    expect(result.kind).toBe('diff')
    expect(
      compareResponses(
        live,
        response(200, {}, new Uint8Array([0xff, 0x00, 0x80, 0x81])),
        options(),
      ),
    ).toEqual(MATCH)
  })

  test('compressed and plain bodies with the same JSON are equal; only the header differs', () => {
    const value = { message: 'same' }
    const live = response(
      200,
      { 'Content-Encoding': ['gzip'] },
      new Uint8Array(zlib.gzipSync(JSON.stringify(value))),
    )
    const shadow = response(
      200,
      { 'Content-Encoding': ['br'] },
      new Uint8Array(zlib.brotliCompressSync(JSON.stringify(value))),
    )
    expect(compareResponses(live, shadow, options())).toEqual({
      kind: 'diff',
      ops: [{ op: 'replace', path: '/headers/Content-Encoding/0', value: 'br' }],
    })
    expect(
      compareResponses(live, shadow, options({ ignored_fields: ['headers.Content-Encoding'] })),
    ).toEqual(MATCH)
  })

  test('charsets are decoded before comparing', () => {
    const live = response(
      200,
      { 'Content-Type': ['text/plain; charset=iso-8859-1'] },
      new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
    )
    const shadow = response(200, { 'Content-Type': ['text/plain; charset=utf-8'] }, 'café')
    expect(
      compareResponses(live, shadow, options({ ignored_fields: ['headers.content-type'] })),
    ).toEqual(MATCH)
  })

  test('DiffConfig applies to the whole document', () => {
    const live = response(200, { 'X-A': ['1'] }, '{"user":{"name":"a"},"other":1}')
    const shadow = response(201, { 'X-A': ['2'] }, '{"user":{"name":"a"},"other":2}')
    expect(compareResponses(live, shadow, options({ included_fields: ['body.user'] }))).toEqual(
      MATCH,
    )
  })

  test('an ignored body is not even read', () => {
    const live = response(200, { 'Content-Encoding': ['gzip'] }, 'not gzip at all')
    const shadow = response(200, {}, 'something else')
    expect(
      compareResponses(
        live,
        shadow,
        options({ ignored_fields: ['body', 'headers.content-encoding'] }),
      ),
    ).toEqual(MATCH)
  })

  test('redacted body fields are excluded from the comparison', () => {
    const result = compareResponses(
      json({ token: 'a', v: 1 }),
      json({ token: 'b', v: 1 }),
      options({}, { redactedFields: ['body.token'] }),
    )
    expect(result).toEqual(MATCH)
  })
})

describe('compareResponses: failures and limits', () => {
  test('a failed shadow (status 0) is an error with its text', () => {
    const shadow = response(0, {}, 'connect ECONNREFUSED 127.0.0.1:3001')
    expect(compareResponses(json({}), shadow, options())).toEqual({
      kind: 'error',
      cause: 'shadow failed: connect ECONNREFUSED 127.0.0.1:3001',
    })
  })

  test('a failed live is an error too', () => {
    expect(compareResponses(response(0, {}, 'timeout'), json({}), options())).toEqual({
      kind: 'error',
      cause: 'live failed: timeout',
    })
  })

  test('a failure without text still has a cause', () => {
    expect(compareResponses(json({}), response(0, {}, ''), options())).toEqual({
      kind: 'error',
      cause: 'shadow failed: no response',
    })
  })

  test('bodies above maxBodyBytes are not diffed: equal bytes match', () => {
    const body = JSON.stringify({ big: 'x'.repeat(200) })
    expect(
      compareResponses(
        response(200, {}, body),
        response(200, {}, body),
        options({}, { maxBodyBytes: 100 }),
      ),
    ).toEqual(MATCH)
  })

  test('bodies above maxBodyBytes that differ give one replace with a note, not a diff of the contents', () => {
    const live = response(200, {}, JSON.stringify({ big: 'x'.repeat(200) }))
    const shadow = response(200, {}, JSON.stringify({ big: 'y'.repeat(200) }))
    const result = compareResponses(live, shadow, options({}, { maxBodyBytes: 100 }))
    expect(result).toEqual({
      kind: 'diff',
      ops: [
        {
          op: 'replace',
          path: '/body',
          value: '[body not diffed: live 210 bytes, shadow 210 bytes, limit 100 bytes]',
        },
      ],
    })
  })

  test('a body that decodes past maxBodyBytes is not diffed', () => {
    const big = new Uint8Array(zlib.gzipSync(JSON.stringify({ v: 'x'.repeat(10_000) })))
    const other = new Uint8Array(zlib.gzipSync(JSON.stringify({ v: 'y'.repeat(10_000) })))
    expect(big.byteLength).toBeLessThan(1000)
    const result = compareResponses(
      response(200, { 'Content-Encoding': ['gzip'] }, big),
      response(200, { 'Content-Encoding': ['gzip'] }, other),
      options({}, { maxBodyBytes: 1000 }),
    )
    expect(result.kind === 'diff' && result.ops[0]!.value).toContain('not diffed')
  })

  test('a large body nested a million levels deep is compared as text, without parsing', () => {
    const deep = (leaf: string) => '['.repeat(1_000_000) + leaf + ']'.repeat(1_000_000)
    const started = performance.now()
    const result = compareResponses(
      response(200, {}, deep('1')),
      response(200, {}, deep('2')),
      options(),
    )
    // Parsing alone would take seconds (about a microsecond per level).
    expect(performance.now() - started).toBeLessThan(500)
    expect(result).toEqual({
      kind: 'diff',
      ops: [{ op: 'replace', path: '/body', value: deep('2') }],
    })
  })

  test('a byte order mark does not hide a deep body from the scan', () => {
    const deep = '\ufeff' + '['.repeat(500_000) + '1' + ']'.repeat(500_000)
    const started = performance.now()
    const result = compareResponses(
      response(200, {}, deep),
      response(200, {}, deep + ' '),
      options(),
    )
    expect(performance.now() - started).toBeLessThan(500)
    expect(result.kind).toBe('diff')
  })

  test('a small deep body is parsed; the part past the depth bound is compared as text', () => {
    const deep = (leaf: string) => '['.repeat(20_000) + leaf + ']'.repeat(20_000)
    const result = compareResponses(
      response(200, {}, deep('1')),
      response(200, {}, deep('2')),
      options(),
    )
    expect(result.kind).toBe('diff')
    const op = result.kind === 'diff' ? result.ops[0]! : undefined
    expect(op?.path).toBe('/body' + '/0'.repeat(255))
    expect(typeof op?.value).toBe('string')
    expect(() => JSON.stringify(result)).not.toThrow()
  })
})
