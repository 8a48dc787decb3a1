import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { RAW_MAX_BODY_BYTES, RAW_MAX_HEAD_BYTES, scanRequestHead, type HeadScan } from '../../../../src/proxy/server/request-head.ts'

const bytes = (text: string) => Buffer.from(text, 'latin1')

describe('scanRequestHead', () => {
  test('reads a plain request: method, target, fields in order (names lower case, values trimmed), where its body starts', () => {
    const wire = 'POST /a/b?q=1&r=%20 HTTP/1.1\r\nHost: api.test\r\nX-Thing:  two words \r\nContent-Length: 3\r\n\r\nabcGET'
    const scan = scanRequestHead(bytes(wire), 0)
    expect(scan).toEqual({
      kind: 'head',
      head: {
        method: 'POST',
        target: '/a/b?q=1&r=%20',
        names: ['host', 'x-thing', 'content-length'],
        values: ['api.test', 'two words', '3'],
        contentLength: 3,
        close: false,
      },
      bodyStart: wire.indexOf('abc'),
    })
  })

  test('reads the head that starts at an offset (the next pipelined request)', () => {
    const first = 'GET /1 HTTP/1.1\r\nHost: a\r\n\r\n'
    const scan = scanRequestHead(bytes(first + 'GET /2 HTTP/1.1\r\nHost: a\r\n\r\n'), first.length)
    expect(scan.kind === 'head' && scan.head.target).toBe('/2')
  })

  test('a value of spaces and tabs only reads as empty', () => {
    const scan = scanRequestHead(bytes('GET / HTTP/1.1\r\nHost: a\r\nX-Empty: \t \t\r\nX-None:\r\n\r\n'), 0)
    expect(scan.kind === 'head' && scan.head.values).toEqual(['a', '', ''])
  })

  test('Connection: close is heard among other options', () => {
    const scan = scanRequestHead(bytes('GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Close\r\n\r\n'), 0)
    expect(scan.kind === 'head' && scan.head.close).toBe(true)
  })

  test('is incomplete until the empty line', () => {
    expect(scanRequestHead(bytes('GET / HTTP/1.1\r\nHost: a\r\n'), 0)).toEqual({ kind: 'incomplete' })
  })

  // Each goes to Bun.serve, whose parser answers it as the Bun.serve server does.
  test.each([
    ['chunked body', 'POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n', 'transfer-encoding'],
    ['Expect', 'POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n', 'expect'],
    ['Upgrade', 'GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n', 'upgrade'],
    ['Connection: upgrade', 'GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\n\r\n', 'upgrade'],
    ['HTTP/1.0', 'GET / HTTP/1.0\r\nHost: a\r\n\r\n', 'request line'],
    ['absolute form', 'GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n', 'request line'],
    ['dot segment', 'GET /a/../b HTTP/1.1\r\nHost: a\r\n\r\n', 'target'],
    ['encoded dot segment', 'GET /a/%2E%2e/b HTTP/1.1\r\nHost: a\r\n\r\n', 'target'],
    ['leading //', 'GET //a HTTP/1.1\r\nHost: a\r\n\r\n', 'target'],
    ['a space in the target', 'GET /a b HTTP/1.1\r\nHost: a\r\n\r\n', 'request line'],
    ['no Host', 'GET / HTTP/1.1\r\nX: 1\r\n\r\n', 'host'],
    ['two Hosts', 'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 'host'],
    ['two Content-Lengths', 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n', 'content-length'],
    ['a Content-Length list', 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 1\r\n\r\n', 'content-length'],
    ['a body over the raw bound', `POST / HTTP/1.1\r\nHost: a\r\nContent-Length: ${RAW_MAX_BODY_BYTES + 1}\r\n\r\n`, 'body too large'],
    ['obsolete line folding', 'GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n 2\r\n\r\n', 'field line'],
    ['a folded line with a colon', 'GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n Y: 2\r\n\r\n', 'field name'],
    ['a bare LF', 'GET / HTTP/1.1\nHost: a\r\n\r\n', 'bare LF'],
    ['a control character in a value', 'GET / HTTP/1.1\r\nHost: a\r\nX: a\u0001b\r\n\r\n', 'field value'],
    ['a vertical tab before a length', 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \u000b5\r\n\r\n', 'field value'],
    ['obs-text in a value', 'GET / HTTP/1.1\r\nHost: a\r\nX: caf\u00e9\r\n\r\n', 'field value'],
    ['a field without a colon', 'GET / HTTP/1.1\r\nHost: a\r\nnonsense\r\n\r\n', 'field line'],
  ])('%s goes elsewhere', (_, wire, reason) => {
    expect(scanRequestHead(bytes(wire), 0)).toEqual({ kind: 'elsewhere', reason })
  })

  test('a head over the raw bound goes elsewhere, complete or not', () => {
    const long = `GET / HTTP/1.1\r\nHost: a\r\nX: ${'v'.repeat(RAW_MAX_HEAD_BYTES)}\r\n`
    expect(scanRequestHead(bytes(long), 0)).toEqual({ kind: 'elsewhere', reason: 'head too large' })
    expect(scanRequestHead(bytes(`${long}\r\n`), 0)).toEqual({ kind: 'elsewhere', reason: 'head too large' })
  })

  /** A name in any case: well-known ones (read without a string of their own) and any other token. */
  const token = fc.oneof(
    fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/),
    fc
      .tuple(fc.constantFrom('accept', 'user-agent', 'x-request-id', 'cookie', 'x-forwarded-for', 'date'), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }))
      .map(([name, upper]) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')),
  )
  const fieldValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,30}[\x21-\x7e])?$/)
  /** Optional white space around a value: dropped, whatever its mix of spaces and tabs. */
  const ows = fc.stringMatching(/^[ \t]{0,3}$/)
  const target = fc.stringMatching(/^\/[A-Za-z0-9_~!$&()*+,;=:@?-]{0,40}$/)
  const fields = fc.array(fc.tuple(token, ows, fieldValue, ows), { maxLength: 8 }).map((list) =>
    list.filter(([name]) => !['host', 'content-length', 'transfer-encoding', 'upgrade', 'expect', 'connection'].includes(name.toLowerCase())),
  )
  /** Methods are case-sensitive tokens: the standard ones and others, `get` not being `GET`. */
  const method = fc.oneof(fc.constantFrom('GET', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'get', 'Post'), fc.stringMatching(/^[A-Z]{1,10}$/))

  test('any plain request reads back as written, however its bytes are split on the way in', () => {
    fc.assert(
      fc.property(method, target, fields, fc.nat({ max: 200 }), (method, path, list, cut) => {
        const wire = `${method} ${path} HTTP/1.1\r\nHost: h\r\n${list.map(([n, before, v, after]) => `${n}:${before}${v}${after}\r\n`).join('')}\r\n`
        const expected: HeadScan = {
          kind: 'head',
          head: {
            method,
            target: path,
            names: ['host', ...list.map(([n]) => n.toLowerCase())],
            values: ['h', ...list.map(([, , v]) => v)],
            contentLength: 0,
            close: false,
          },
          bodyStart: wire.length,
        }
        expect(scanRequestHead(bytes(wire), 0)).toEqual(expected)
        // As the connection reads it: the first part alone is incomplete, then the whole, searched from where it stopped.
        const at = Math.min(cut, wire.length - 1)
        expect(scanRequestHead(bytes(wire.slice(0, at)), 0)).toEqual({ kind: 'incomplete' })
        expect(scanRequestHead(bytes(wire), 0, at)).toEqual(expected)
      }),
    )
  })

  test('never throws, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 300 }), (data, from) => {
        const scan = scanRequestHead(Buffer.from(data), Math.min(from, data.length))
        expect(['incomplete', 'head', 'elsewhere']).toContain(scan.kind)
      }),
    )
  })
})
