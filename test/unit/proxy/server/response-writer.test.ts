import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { chunkSizeLine, clientHead, passesAsIs, problemResponseText } from '../../../../src/proxy/server/response-writer.ts'
import { framingOf, headEnd, parseHead, type ResponseHead } from '../../../../src/proxy/upstream/response-head.ts'
import type { SentHead } from '../../../../src/proxy/upstream/http1-response.ts'

function head(fields: Record<string, string>, setCookies: string[] = [], status = 200): ResponseHead {
  return { status, fields: Object.assign(Object.create(null), fields), setCookies }
}

describe('clientHead', () => {
  test("keeps live's fields, reason phrase and length; drops hop-by-hop fields and those Connection names", () => {
    const live = head({
      'content-type': 'application/json',
      'content-length': '12',
      connection: 'keep-alive, X-Secret, not a token',
      'x-secret': 'hop',
      'keep-alive': 'timeout=5',
      'proxy-authenticate': 'Basic',
      'x-kept': 'yes',
    })
    const out = clientHead(live, 'HTTP/1.1 200 Fine By Me', { kind: 'length', length: 12 }, false)
    expect(out).toEqual({
      text: 'HTTP/1.1 200 Fine By Me\r\ncontent-type: application/json\r\ncontent-length: 12\r\nx-kept: yes\r\n\r\n',
      chunked: false,
    })
  })

  test('a chunked body, or one read until live closed, goes out chunked without a length', () => {
    for (const framing of [{ kind: 'chunked' }, { kind: 'close' }] as const) {
      const out = clientHead(head({ 'transfer-encoding': 'chunked', 'x-a': '1' }), 'HTTP/1.0 200 OK', framing, false)
      expect(out).toEqual({ text: 'HTTP/1.1 200 OK\r\nx-a: 1\r\ntransfer-encoding: chunked\r\n\r\n', chunked: true })
    }
  })

  test('each Set-Cookie is a line of its own; an empty reason stays empty; close is said when asked', () => {
    const out = clientHead(head({}, ['a=1', 'b=2'], 204), 'HTTP/1.1 204', { kind: 'none' }, true)
    expect(out.text).toBe('HTTP/1.1 204 \r\nset-cookie: a=1\r\nset-cookie: b=2\r\nconnection: close\r\n\r\n')
  })
})

test('a Problem is a whole response, its length in bytes', () => {
  const text = problemResponseText({ type: '/errors/bad-gateway', title: 'Bad gateway', status: 502, detail: 'live: déjà' }, false)
  const [headText, body] = text.split('\r\n\r\n')
  expect(headText).toBe(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body!)}`)
  expect(JSON.parse(body!)).toMatchObject({ status: 502, detail: 'live: déjà' })
})

test('chunk size lines are hexadecimal', () => {
  expect(chunkSizeLine(0x1f40)).toBe('1f40\r\n')
})

/** A head as the response reader hands it to a relay: parsed, framed, and as it was sent. */
function received(bytes: string, method = 'GET'): { head: ResponseHead; statusLine: string; framing: ReturnType<typeof framingOf>; sent: SentHead } {
  const data = Buffer.from(bytes, 'latin1')
  const [end, next] = headEnd(data, 0, 0)!
  const text = data.toString('latin1', 0, end)
  const head = parseHead(text)
  const statusLine = text.slice(0, text.search(/\r?\n|$/))
  return { head, statusLine, framing: framingOf(method, head), sent: { data, start: 0, end: next, text } }
}

describe('passesAsIs', () => {
  test('a plain HTTP/1.1 head with a length passes as sent, names in their case and repeated fields kept', () => {
    const r = received('HTTP/1.1 200 OK\r\nX-Mixed-Case: A\r\nX-Twice: 1\r\nX-Twice: 2\r\nContent-Length: 2\r\n\r\nok')
    expect(passesAsIs(r.head, r.statusLine, r.framing, false, r.sent)).toBe(true)
  })

  test.each([
    ['the client connection closes after it', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n', true],
    ['a chunked body', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', false],
    ['a body read until live closes', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n\r\n', false],
    ['HTTP/1.0', 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n', false],
    ['no space before the (empty) reason phrase', 'HTTP/1.1 204\r\nX-A: 1\r\n\r\n', false],
    ['a line ending in LF alone', 'HTTP/1.1 200 OK\nContent-Length: 2\r\n\r\n', false],
    ['an empty line of LF alone', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\n', false],
    ['a hop-by-hop field', 'HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\n', false],
    ['a Connection field', 'HTTP/1.1 200 OK\r\nConnection: X-Private\r\nX-Private: 1\r\nContent-Length: 2\r\n\r\n', false],
    ['Content-Length repeated', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n', false],
  ])('is rewritten for %s', (_case, bytes, close) => {
    const r = received(bytes)
    expect(passesAsIs(r.head, r.statusLine, r.framing, close, r.sent)).toBe(false)
  })

  test('whenever a head passes as sent, a client reads from it what clientHead would have said', () => {
    const name = fc.constantFrom('Content-Type', 'x-a', 'X-A', 'ETag', 'Set-Cookie', 'set-cookie', 'Cache-Control', 'Vary', 'Connection', 'Keep-Alive', 'Transfer-Encoding')
    const value = fc.stringMatching(/^[!-~]([ -~]{0,12}[!-~])?$/)
    // Mostly what passes (CRLF, no hop-by-hop field, one length), so that the property is tried on many heads that do.
    const line = fc.tuple(name, value, fc.constantFrom('\r\n', '\r\n', '\r\n', '\r\n', '\n'))
    let passed = 0
    fc.assert(
      fc.property(
        fc.constantFrom('HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 404 Not Found', 'HTTP/1.1 204', 'HTTP/1.0 200 OK', 'HTTP/1.1 200 '),
        fc.array(line, { maxLength: 6 }),
        fc.constantFrom(0, 1, 1, 1, 2),
        fc.constantFrom('\r\n', '\r\n', '\r\n', '\n'),
        fc.constantFrom(false, false, false, true),
        fc.constantFrom('GET', 'HEAD'),
        (status, lines, lengths, last, close, method) => {
          let bytes = `${status}\r\n`
          for (const [n, v, end] of lines) bytes += `${n}: ${v}${end}`
          for (let i = 0; i < lengths; i++) bytes += 'Content-Length: 2\r\n'
          bytes += last
          let r: ReturnType<typeof received>
          try {
            r = received(bytes, method)
          } catch {
            return // a head the reader refuses never reaches a relay
          }
          if (!passesAsIs(r.head, r.statusLine, r.framing, close, r.sent)) return
          passed++
          const asSent = parseHead(r.sent.text)
          const rewritten = clientHead(r.head, r.statusLine, r.framing, close).text
          const asWritten = parseHead(rewritten.slice(0, -4))
          expect(asSent).toEqual(asWritten)
          expect(r.sent.text.split('\r\n')[0]).toBe(rewritten.split('\r\n')[0])
        },
      ),
      { numRuns: 1000 },
    )
    expect(passed).toBeGreaterThan(25)
  })
})

