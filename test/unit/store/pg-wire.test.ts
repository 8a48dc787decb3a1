import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import {
  CANCEL_REQUEST_CODE,
  fatalError,
  frontendMessage,
  FrontendReader,
  GSSENC_REQUEST_CODE,
  PROTOCOL_3_0,
  ReadyForQueryScanner,
  SSL_REQUEST_CODE,
  type FrontendMessage,
} from '../../../src/store/pg-wire.ts'

const text = (s: string) => new TextEncoder().encode(s)

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

function untyped(code: number, body: Uint8Array = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(8 + body.length)
  new DataView(out.buffer).setInt32(0, 8 + body.length)
  new DataView(out.buffer).setInt32(4, code)
  out.set(body, 8)
  return out
}

const STARTUP = untyped(PROTOCOL_3_0, text('user\0postgres\0database\0postgres\0\0'))
const PARSE = frontendMessage('P', text('\0SELECT 1\0\0\0'))
const BIND = frontendMessage('B', text('\0\0\0\0\0\0\0\0'))
const EXECUTE = frontendMessage('E', text('\0\0\0\0\0'))
const SYNC = frontendMessage('S')
const BIG = frontendMessage('Q', text(`SELECT '${'x'.repeat(70_000)}'\0`))

/** A client's whole stream, and what the reader should make of it. */
const STREAM = concat(untyped(SSL_REQUEST_CODE), STARTUP, PARSE, BIND, EXECUTE, SYNC, BIG, SYNC)
const EXPECTED: FrontendMessage[] = [
  { kind: 'encryption-request' },
  { kind: 'startup', bytes: STARTUP },
  ...[PARSE, BIND, EXECUTE, SYNC, BIG, SYNC].map((bytes) => ({ kind: 'message' as const, type: bytes[0]!, bytes })),
]

/** Cuts `bytes` at the given offsets (any order, duplicates allowed). */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const pieces: Uint8Array[] = []
  let from = 0
  for (const point of [...points, bytes.length]) {
    pieces.push(bytes.subarray(from, point))
    from = point
  }
  return pieces
}

describe('FrontendReader', () => {
  test('reads an encryption request, the startup message, then typed messages', () => {
    expect(new FrontendReader().push(STREAM)).toEqual(EXPECTED)
  })

  test('gives the same messages however the stream is cut into pieces', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 40 }), (cuts) => {
        const reader = new FrontendReader()
        const messages = split(STREAM, cuts).flatMap((piece) => reader.push(piece))
        expect(messages).toEqual(EXPECTED)
      }),
      { numRuns: 300 },
    )
  })

  test('gives nothing until a message is whole', () => {
    const reader = new FrontendReader()
    expect(reader.push(STARTUP)).toHaveLength(1)
    expect(reader.push(PARSE.subarray(0, 3))).toEqual([])
    expect(reader.push(PARSE.subarray(3, PARSE.length - 1))).toEqual([])
    expect(reader.push(PARSE.subarray(PARSE.length - 1))).toEqual([{ kind: 'message', type: 0x50, bytes: PARSE }])
  })

  test.each([
    ['a GSSENCRequest', untyped(GSSENC_REQUEST_CODE), { kind: 'encryption-request' }],
    ['a CancelRequest', untyped(CANCEL_REQUEST_CODE, new Uint8Array(8)), { kind: 'cancel-request' }],
    ['protocol 2.0', untyped(0x20000), { kind: 'invalid', reason: 'unsupported frontend protocol 2.0' }],
    ['a startup length below 8', concat(new Uint8Array([0, 0, 0, 4]), new Uint8Array(4)), { kind: 'invalid', reason: 'startup packet length 4' }],
  ])('reads %s before the startup message', (_, bytes, expected) => {
    expect(new FrontendReader().push(bytes)).toEqual([expected as FrontendMessage])
  })

  test('refuses a message length below 4 or above 1 GiB, and reads nothing after', () => {
    const short = new FrontendReader()
    short.push(STARTUP)
    expect(short.push(new Uint8Array([0x51, 0, 0, 0, 3]))).toEqual([{ kind: 'invalid', reason: 'message length 3' }])
    expect(short.push(SYNC)).toEqual([])

    const huge = new FrontendReader()
    huge.push(STARTUP)
    expect(huge.push(new Uint8Array([0x51, 0x40, 0, 0, 0]))).toEqual([{ kind: 'invalid', reason: 'message length 1073741824' }])
  })
})

/** A backend message of `type` with `body`. */
function backend(type: string, body: Uint8Array): Uint8Array {
  return frontendMessage(type, body)
}

const readyFor = (status: string) => backend('Z', text(status))
/** A DataRow whose one column holds the very bytes of a ReadyForQuery 'I'. */
const TRICKY_ROW = backend('D', concat(new Uint8Array([0, 1, 0, 0, 0, 6]), readyFor('I')))

describe('ReadyForQueryScanner', () => {
  test('reports the last ReadyForQuery status, then nothing until the next', () => {
    const scanner = new ReadyForQueryScanner()
    scanner.feed(concat(backend('1', new Uint8Array(0)), backend('C', text('SELECT 1\0')), readyFor('T')))
    expect(scanner.takeStatus()).toBe('T')
    expect(scanner.takeStatus()).toBeUndefined()
    scanner.feed(readyFor('E'))
    scanner.feed(readyFor('I'))
    expect(scanner.takeStatus()).toBe('I')
  })

  test('is not fooled by a row holding the bytes of a ReadyForQuery', () => {
    const scanner = new ReadyForQueryScanner()
    scanner.feed(TRICKY_ROW)
    scanner.feed(backend('C', text('SELECT 1\0')))
    expect(scanner.takeStatus()).toBeUndefined()
  })

  test('finds the status however the answer is cut into pieces', () => {
    const answer = concat(TRICKY_ROW, backend('C', text('SELECT 1\0')), readyFor('T'), TRICKY_ROW)
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 30 }), (cuts) => {
        const scanner = new ReadyForQueryScanner()
        for (const piece of split(answer, cuts)) scanner.feed(piece)
        expect(scanner.takeStatus()).toBe('T')
      }),
      { numRuns: 300 },
    )
  })
})

test('fatalError is an ErrorResponse with severity, code and message', () => {
  const bytes = fatalError('53300', 'sorry, too many clients already')
  expect(String.fromCharCode(bytes[0]!)).toBe('E')
  expect(new DataView(bytes.buffer).getInt32(1)).toBe(bytes.length - 1)
  expect(new TextDecoder().decode(bytes.subarray(5))).toBe('SFATAL\0VFATAL\0C53300\0Msorry, too many clients already\0\0')
})
