import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { ResponseReader, type ReadState } from '../../../../src/proxy/upstream/http1-response.ts'
import { ResponseProtocolError, ResponseTooLargeError } from '../../../../src/proxy/upstream/response-head.ts'

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const bytesOf = (s: string) => Buffer.from(s, 'latin1')

/** Feeds `wire` in the given pieces; returns the last state. */
function feed(reader: ResponseReader, wire: Buffer, cuts: number[] = []): ReadState {
  let state: ReadState = 'more'
  let from = 0
  for (const cut of [...cuts.filter((c) => c > 0 && c < wire.length)].sort((a, b) => a - b).concat(wire.length)) {
    state = reader.push(wire.subarray(from, cut))
    from = cut
  }
  return state
}

function chunked(parts: string[], trailers = ''): string {
  return parts.map((p) => `${Buffer.byteLength(p, 'latin1').toString(16)}\r\n${p}\r\n`).join('') + `0\r\n${trailers}\r\n`
}

describe('ResponseReader framing', () => {
  test('Content-Length: the body, then the connection can be reused', () => {
    const reader = new ResponseReader('GET', 0)
    expect(feed(reader, bytesOf('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}'))).toBe('done')
    expect(reader.head).toEqual({ status: 200, fields: { 'content-type': 'application/json', 'content-length': '7' }, setCookies: [] })
    expect(text(reader.body)).toBe('{"a":1}')
    expect(reader.reusable).toBe(true)
  })

  test('chunked: de-chunked, extensions and trailers dropped', () => {
    const reader = new ResponseReader('GET', 0)
    const wire = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n`
    expect(feed(reader, bytesOf(wire))).toBe('done')
    expect(text(reader.body)).toBe('hello world')
    expect(reader.reusable).toBe(true)
  })

  test('no length and no chunking: the body runs until the connection closes, which is then not reused', () => {
    const reader = new ResponseReader('GET', 0)
    expect(feed(reader, bytesOf('HTTP/1.1 200 OK\r\n\r\nstream of'))).toBe('more')
    expect(reader.push(bytesOf(' bytes'))).toBe('more')
    expect(reader.end()).toBe('done')
    expect(text(reader.body)).toBe('stream of bytes')
    expect(reader.reusable).toBe(false)
  })

  test('a Transfer-Encoding not ending in chunked is read until close (RFC 9112 6.3)', () => {
    const reader = new ResponseReader('GET', 0)
    expect(feed(reader, bytesOf('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabcdef'))).toBe('more')
    expect(reader.end()).toBe('done')
    expect(text(reader.body)).toBe('abcdef')
  })

  test('HEAD, 204 and 304 have no body whatever their Content-Length says', () => {
    for (const [method, status] of [['HEAD', 200], ['GET', 204], ['GET', 304]] as const) {
      const reader = new ResponseReader(method, 0)
      expect(feed(reader, bytesOf(`HTTP/1.1 ${status} X\r\nContent-Length: 10\r\n\r\n`))).toBe('done')
      expect(reader.body.byteLength).toBe(0)
      expect(reader.reusable).toBe(true)
    }
  })

  test('interim 1xx responses are skipped; 101 is refused', () => {
    const reader = new ResponseReader('POST', 0)
    const wire = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok'
    expect(feed(reader, bytesOf(wire))).toBe('done')
    expect(reader.head!.status).toBe(201)
    expect(reader.head!.fields).toEqual({ 'content-length': '2' })
    expect(() => new ResponseReader('GET', 0).push(bytesOf('HTTP/1.1 101 Switching Protocols\r\n\r\n'))).toThrow(ResponseProtocolError)
  })

  test('Connection: close, and HTTP/1.0 without keep-alive, end the connection; HTTP/1.0 with keep-alive does not', () => {
    const cases: [string, boolean][] = [
      ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', false],
      ['HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n', false],
      ['HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n', true],
    ]
    for (const [wire, reusable] of cases) {
      const reader = new ResponseReader('GET', 0)
      expect(feed(reader, bytesOf(wire))).toBe('done')
      expect(reader.reusable).toBe(reusable)
    }
  })

  test('bytes after the response make the connection unusable', () => {
    const reader = new ResponseReader('GET', 0)
    expect(feed(reader, bytesOf('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1'))).toBe('done')
    expect(text(reader.body)).toBe('a')
    expect(reader.reusable).toBe(false)
  })

  test('a connection closed mid-body or mid-head is an ECONNRESET error; before any byte, nothing was received', () => {
    const reader = new ResponseReader('GET', 0)
    feed(reader, bytesOf('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'))
    expect(() => reader.end()).toThrow(expect.objectContaining({ code: 'ECONNRESET' }))
    const midHead = new ResponseReader('GET', 0)
    expect(midHead.push(bytesOf('HTTP/1.1 200 OK\r\nContent-Le'))).toBe('more')
    expect(midHead.received).toBe(true)
    expect(() => midHead.end()).toThrow(expect.objectContaining({ code: 'ECONNRESET' }))
    const early = new ResponseReader('GET', 0)
    expect(early.received).toBe(false)
    expect(() => early.end()).toThrow(expect.objectContaining({ code: 'ECONNRESET' }))
  })
})

describe('ResponseReader takes what fetch takes', () => {
  test('lines ending with a bare LF in the head (RFC 9112 2.2)', () => {
    const reader = new ResponseReader('GET', 0)
    expect(feed(reader, bytesOf('HTTP/1.1 200 OK\nContent-Length: 2\nX-A: 1\r\n\nok'))).toBe('done')
    expect(reader.head!.fields).toEqual({ 'content-length': '2', 'x-a': '1' })
    expect(text(reader.body)).toBe('ok')
  })

  test('bare-LF heads cut anywhere', () => {
    const wire = bytesOf('HTTP/1.1 200 OK\nContent-Length: 3\n\nabc')
    for (let cut = 1; cut < wire.length; cut++) {
      const reader = new ResponseReader('GET', 0)
      expect(feed(reader, wire, [cut])).toBe('done')
      expect(text(reader.body)).toBe('abc')
    }
  })

  test('repeated Content-Lengths that agree as numbers', () => {
    const reader = new ResponseReader('GET', 0)
    expect(feed(reader, bytesOf('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 02\r\n\r\nok'))).toBe('done')
  })

  test('Transfer-Encoding in HTTP/1.0: read by the coding, then the connection is closed', () => {
    const reader = new ResponseReader('GET', 0)
    expect(feed(reader, bytesOf(`HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(['ab'])}`))).toBe('done')
    expect(text(reader.body)).toBe('ab')
    expect(reader.reusable).toBe(false)
  })
})

describe('ResponseReader refuses a response framed two ways (RFC 9112 6.1)', () => {
  test.each([
    ['Content-Length, then Transfer-Encoding', 'Content-Length: 99\r\nTransfer-Encoding: chunked'],
    ['Transfer-Encoding, then Content-Length', 'Transfer-Encoding: chunked\r\nContent-Length: 2'],
    ['a coding other than chunked with a length', 'Transfer-Encoding: gzip\r\nContent-Length: 3'],
  ])('%s is a bad response, whole or cut anywhere', (_, fields) => {
    const wire = bytesOf(`HTTP/1.1 200 OK\r\n${fields}\r\n\r\n${chunked(['ok'])}`)
    for (let cut = 0; cut < wire.length; cut += 7) {
      expect(() => feed(new ResponseReader('GET', 0), wire, [cut])).toThrow(
        new ResponseProtocolError('Content-Length with Transfer-Encoding'),
      )
    }
  })
})

describe('ResponseReader bound', () => {
  test('an announced length above the bound is too large at once, nothing kept, the connection not reused', () => {
    const reader = new ResponseReader('GET', 5)
    expect(reader.push(bytesOf('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n'))).toBe('too-large')
    expect(reader.tooLarge).toBe(true)
    expect(reader.reusable).toBe(false)
  })

  test('chunked and close-delimited bodies are too large once past the bound; up to it they are kept', () => {
    const over = new ResponseReader('GET', 5)
    expect(feed(over, bytesOf(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(['abc', 'def'])}`))).toBe('too-large')
    const closeDelimited = new ResponseReader('GET', 5)
    expect(closeDelimited.push(bytesOf('HTTP/1.1 200 OK\r\n\r\nabcdef'))).toBe('too-large')
    const exact = new ResponseReader('GET', 6)
    expect(feed(exact, bytesOf(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(['abc', 'def'])}`))).toBe('done')
    expect(text(exact.body)).toBe('abcdef')
  })
})

describe('ResponseReader budget', () => {
  test('asks `reserve` before keeping each piece of the body; once refused it keeps nothing and reads no more', () => {
    const asked: number[] = []
    const reader = new ResponseReader('GET', 0, (n) => (asked.push(n), asked.length < 2))
    const wire = bytesOf('HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc')
    expect(reader.push(wire)).toBe('more')
    expect(reader.push(bytesOf('def'))).toBe('over-budget')
    expect(reader.push(bytesOf('ghi'))).toBe('over-budget')
    expect(asked).toEqual([3, 3])
    expect(reader.overBudget).toBe(true)
    expect(reader.body.byteLength).toBe(0)
    expect(reader.reusable).toBe(false)
  })

  test('the bound is checked first: a body past it is too large, not over budget', () => {
    const reader = new ResponseReader('GET', 5, () => true)
    expect(reader.push(bytesOf('HTTP/1.1 200 OK\r\n\r\nabcdef'))).toBe('too-large')
  })
})

describe('ResponseReader refuses what is not HTTP/1.1', () => {
  test.each([
    ['a bad status line', 'HTTP/2 200 OK\r\n\r\n'],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n'],
    ['a bad header name', 'HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n'],
    ['a bad Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n'],
    ['disagreeing Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'],
    ['a bad chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    ['a chunk size with a space after it (fetch refuses it)', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nok\r\n0\r\n\r\n'],
    ['a chunk size line ending with a bare LF (fetch refuses it)', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nok\r\n0\r\n\r\n'],
    ['a bare CR inside a field value', 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 0\r\n\r\n'],
    ['a control byte inside a field value', 'HTTP/1.1 200 OK\r\nX-A: a\u0001b\r\nContent-Length: 0\r\n\r\n'],
    ['a chunk without its CRLF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\naXY'],
  ])('%s', (_, wire) => {
    expect(() => new ResponseReader('GET', 0).push(bytesOf(wire))).toThrow(ResponseProtocolError)
  })

  test('the 64 KB bounds of the head and the trailers hold however the bytes are split: too large, not a protocol error', () => {
    const big = `HTTP/1.1 200 OK\r\nX-Long: ${'a'.repeat(70_000)}\r\nContent-Length: 0\r\n\r\n`
    const tooLarge = new ResponseTooLargeError('head over 65536 bytes')
    expect(() => new ResponseReader('GET', 0).push(bytesOf(big))).toThrow(tooLarge)
    expect(() => feed(new ResponseReader('GET', 0), bytesOf(big), [30_000, 60_000])).toThrow(tooLarge)
    const bigTrailers = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-T: ${'t'.repeat(70_000)}\r\n\r\n`
    for (const cuts of [[], [100, 40_000]]) {
      expect(() => feed(new ResponseReader('GET', 0), bytesOf(bigTrailers), cuts)).toThrow(
        new ResponseTooLargeError('trailer section over 65536 bytes'),
      )
    }
    // A 5 KB trailer field is within the bound, whole or split.
    const trailer = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-T: ${'t'.repeat(5000)}\r\n\r\n`
    for (const cuts of [[], [80, 3000], [2000]]) {
      const reader = new ResponseReader('GET', 0)
      expect(feed(reader, bytesOf(trailer), cuts)).toBe('done')
      expect(text(reader.body)).toBe('ok')
    }
  })

  test('a head that never ends is refused past 64 KB instead of being buffered', () => {
    const reader = new ResponseReader('GET', 0)
    reader.push(bytesOf('HTTP/1.1 200 OK\r\n'))
    const line = bytesOf(`X-Long: ${'a'.repeat(1000)}\r\n`)
    expect(() => {
      for (let i = 0; i < 100; i++) reader.push(line)
    }).toThrow(ResponseTooLargeError)
  })

  test('interim 1xx heads count towards the bound: endless 100 Continue is refused', () => {
    const reader = new ResponseReader('GET', 0)
    const interim = bytesOf('HTTP/1.1 100 Continue\r\n\r\n')
    expect(() => {
      for (let i = 0; i < 10_000; i++) reader.push(interim)
    }).toThrow(new ResponseTooLargeError('head over 65536 bytes'))
  })
})

describe('ResponseReader work is linear in the bytes received, however they are split', () => {
  /** Feeds `wire` one byte at a time; returns the reader. */
  function dribble(reader: ResponseReader, wire: Buffer): ResponseReader {
    for (let i = 0; i < wire.length; i++) reader.push(wire.subarray(i, i + 1))
    return reader
  }

  test('a 60 KB head sent a byte at a time', () => {
    const fields = Array.from({ length: 600 }, (_, i) => `X-F${i}: ${'v'.repeat(92)}\r\n`).join('')
    const wire = bytesOf(`HTTP/1.1 200 OK\r\n${fields}Content-Length: 2\r\n\r\nok`)
    expect(wire.length).toBeGreaterThan(60_000)
    const reader = dribble(new ResponseReader('GET', 0), wire)
    expect(reader.head!.fields['x-f599']).toBe('v'.repeat(92))
    expect(text(reader.body)).toBe('ok')
    // Each byte is copied and looked at a bounded number of times; a rescan per read would be ~n²/2.
    expect(reader.scanned).toBeLessThan(10 * wire.length)
  })

  test('chunk-size lines with long extensions and a trailer section sent a byte at a time', () => {
    const extension = `;ext=${'e'.repeat(4000)}`
    const body = Array.from({ length: 10 }, () => `2${extension}\r\nok\r\n`).join('')
    const wire = bytesOf(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${body}0\r\nX-T: ${'t'.repeat(30_000)}\r\n\r\n`)
    const reader = dribble(new ResponseReader('GET', 0), wire)
    expect(text(reader.body)).toBe('ok'.repeat(10))
    expect(reader.scanned).toBeLessThan(10 * wire.length)
  })

  test('any response cut anywhere costs at most a few times its length', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3000 }), fc.array(fc.nat({ max: 4000 }), { maxLength: 40 }), (size, cuts) => {
        const wire = bytesOf(`HTTP/1.1 200 OK\r\nX-A: ${'a'.repeat(size)}\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(['abc', 'de'])}`)
        const reader = new ResponseReader('GET', 0)
        expect(feed(reader, wire, cuts)).toBe('done')
        expect(reader.scanned).toBeLessThan(10 * wire.length + 1024)
      }),
      { numRuns: 200 },
    )
  })
})

describe('ResponseReader properties', () => {
  const body = fc.uint8Array({ maxLength: 300 })
  const cuts = fc.array(fc.nat({ max: 600 }), { maxLength: 12 })

  test('a Content-Length response cut anywhere reads back the same body and head', () => {
    fc.assert(
      fc.property(body, cuts, (payload, at) => {
        const wire = Buffer.concat([bytesOf(`HTTP/1.1 200 OK\r\nContent-Length: ${payload.length}\r\n\r\n`), payload])
        const reader = new ResponseReader('GET', 0)
        expect(feed(reader, wire, at)).toBe('done')
        expect(Buffer.from(reader.body).equals(Buffer.from(payload))).toBe(true)
        expect(reader.reusable).toBe(true)
      }),
      { numRuns: 300 },
    )
  })

  test('a chunked response, chunked any way and cut anywhere, de-chunks to the concatenation of its chunks', () => {
    const parts = fc.array(fc.string({ minLength: 1, maxLength: 40 }), { maxLength: 8 })
    fc.assert(
      fc.property(parts, cuts, (chunks, at) => {
        const latin1 = chunks.map((c) => Buffer.from(c, 'utf8').toString('latin1'))
        const wire = bytesOf(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(latin1)}`)
        const reader = new ResponseReader('GET', 0)
        expect(feed(reader, wire, at)).toBe('done')
        expect(Buffer.from(reader.body).toString('latin1')).toBe(latin1.join(''))
      }),
      { numRuns: 300 },
    )
  })

  test('the body is never larger than the bound, and too-large exactly when the body exceeds it', () => {
    fc.assert(
      fc.property(body, fc.nat({ max: 400 }), fc.boolean(), (payload, bound, isChunked) => {
        const wire = isChunked
          ? bytesOf(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(payload.length ? [Buffer.from(payload).toString('latin1')] : [])}`)
          : Buffer.concat([bytesOf(`HTTP/1.1 200 OK\r\nContent-Length: ${payload.length}\r\n\r\n`), payload])
        const reader = new ResponseReader('GET', bound)
        const state = feed(reader, wire)
        const over = bound !== 0 && payload.length > bound
        expect(state).toBe(over ? 'too-large' : 'done')
        expect(reader.body.length).toBe(over ? 0 : payload.length)
      }),
      { numRuns: 300 },
    )
  })
})
