import { describe, expect, test } from 'bun:test'
import { chunkSizeLine, clientHead, problemResponseText } from '../../../../src/proxy/server/response-writer.ts'
import type { ResponseHead } from '../../../../src/proxy/upstream/response-head.ts'

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
