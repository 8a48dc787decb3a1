/**
 * Bodies that cannot be decoded, when body fields are redacted
 * (src/diff/unparsed-body.ts, docs/diff.md "Redaction and what is stored"):
 * a truncated or corrupt stream, or a coding that does not fit the bytes,
 * is stored as `[REDACTED]`, never as it came, since a partial decode of the
 * stored bytes would show the very fields redaction is for.
 */
import { describe, expect, test } from 'bun:test'
import zlib from 'node:zlib'
import {
  compareResponses,
  DEFAULT_DIFF_CONFIG,
  processCapture,
  REDACTED,
  type CaptureInput,
  type HeaderMap,
} from '../../../src/diff/index.ts'

const SECRET = 'hunter2-secret-value'
const encode = (text: string) => new TextEncoder().encode(text)
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
/** Padding that compresses poorly, so that half a compressed stream still holds the secret. */
const PADDING = Array.from({ length: 500 }, (_, i) => ((i * 2654435761) >>> 0).toString(16)).join('')
const DOCUMENT = JSON.stringify({ password: SECRET, user: 'ann', padding: PADDING })
const half = (bytes: Uint8Array) => new Uint8Array(bytes.subarray(0, Math.floor(bytes.byteLength / 2)))
const options = (redactedFields: string[]) => ({ diff: DEFAULT_DIFF_CONFIG, redactedFields })

interface UndecodableCase {
  readonly name: string
  readonly coding: string
  readonly body: Uint8Array
}

/** Each row: a body whose Content-Encoding cannot be undone, and that is not JSON as received. */
const UNDECODABLE: readonly UndecodableCase[] = [
  { name: 'a truncated gzip stream', coding: 'gzip', body: half(zlib.gzipSync(DOCUMENT)) },
  { name: 'a gzip stream with a corrupt middle', coding: 'gzip', body: corrupt(zlib.gzipSync(DOCUMENT)) },
  { name: 'a truncated br stream', coding: 'br', body: half(zlib.brotliCompressSync(DOCUMENT)) },
  { name: 'a truncated deflate stream', coding: 'deflate', body: half(zlib.deflateSync(DOCUMENT)) },
  { name: 'a truncated raw deflate stream', coding: 'deflate', body: half(zlib.deflateRawSync(DOCUMENT)) },
  { name: 'br bytes labelled gzip', coding: 'gzip', body: zlib.brotliCompressSync(DOCUMENT) },
  { name: 'gzip bytes labelled br', coding: 'br', body: zlib.gzipSync(DOCUMENT) },
  { name: 'plain text labelled gzip', coding: 'gzip', body: encode(`password=${SECRET}&user=ann`) },
  { name: 'an unknown coding over plain text', coding: 'x-custom', body: encode(`password=${SECRET}`) },
  { name: 'gzip inside a truncated br', coding: 'gzip, br', body: half(zlib.brotliCompressSync(zlib.gzipSync(DOCUMENT))) },
]

/** Flips bytes in the middle of a stream, past its header. */
function corrupt(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes)
  const middle = Math.floor(copy.byteLength / 2)
  for (let i = middle; i < middle + 16; i++) copy[i] = copy[i]! ^ 0xff
  return copy
}

function captureOf(headers: HeaderMap, body: Uint8Array): CaptureInput {
  return {
    request: { headers, body },
    live: { status: 200, headers, body },
    shadow: { status: 200, headers: { 'Content-Type': ['application/json'] }, body: encode(DOCUMENT) },
  }
}

/** What gunzip makes of as much of the stored bytes as it can read: the leak once observed. */
function partialGunzip(bytes: Uint8Array): string {
  try {
    return decode(zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH }))
  } catch {
    return ''
  }
}

describe('an undecodable body under body redaction', () => {
  for (const row of UNDECODABLE) {
    test(`${row.name} (Content-Encoding: ${row.coding}) is stored as [REDACTED]`, () => {
      const headers = { 'Content-Type': ['application/json'], 'Content-Encoding': [row.coding] }
      const out = processCapture(captureOf(headers, row.body), options(['body.password']))
      for (const stored of [out.request, out.live]) {
        expect(decode(stored.body)).toBe(REDACTED)
        // The stored body is no longer coded: its headers say so.
        expect(stored.headers['Content-Encoding']).toBeUndefined()
      }
      const everything = JSON.stringify([out, decode(out.live.body), partialGunzip(out.live.body)])
      expect(everything).not.toContain(SECRET)
      // The diff shows what is stored.
      expect(out.comparison).toMatchObject({ kind: 'diff' })
      expect(JSON.stringify(out.comparison)).not.toContain(SECRET)
    })
  }

  test('the leak once observed: a truncated gzip labelled application/json kept its secret for a partial gunzip', () => {
    const body = half(zlib.gzipSync(DOCUMENT))
    // The premise: the truncated stream alone still gives the secret away.
    expect(partialGunzip(body)).toContain(SECRET)
    const headers = { 'Content-Type': ['application/json'], 'Content-Encoding': ['gzip'] }
    const out = processCapture(captureOf(headers, body), options(['body.password']))
    expect(partialGunzip(out.live.body)).not.toContain(SECRET)
    expect(decode(out.live.body)).toBe(REDACTED)
  })

  test('the standalone comparison shows [REDACTED] for an undecodable side', () => {
    const body = half(zlib.gzipSync(DOCUMENT))
    const input = captureOf({ 'Content-Type': ['application/json'], 'Content-Encoding': ['gzip'] }, body)
    const compared = compareResponses(input.shadow, input.live, options(['body.password']))
    expect(compared).toMatchObject({ kind: 'diff' })
    expect(JSON.stringify(compared)).not.toContain(SECRET)
  })

  test('an unknown coding over plain JSON is still redacted field by field, not wholesale', () => {
    const headers = { 'Content-Type': ['application/json'], 'Content-Encoding': ['x-custom'] }
    const out = processCapture(captureOf(headers, encode(DOCUMENT)), options(['body.password']))
    expect(JSON.parse(decode(out.live.body))).toMatchObject({ password: REDACTED, user: 'ann' })
  })

  test('without a redacted body field, an undecodable body is stored byte for byte', () => {
    const body = half(zlib.gzipSync(DOCUMENT))
    const headers = { 'Content-Type': ['application/json'], 'Content-Encoding': ['gzip'] }
    const input = captureOf(headers, body)
    const out = processCapture(input, options(['headers.X-Session']))
    expect(out.live.body).toBe(input.live.body)
    expect(out.live.headers['Content-Encoding']).toEqual(['gzip'])
  })

  test('a well-formed compressed body that is not JSON is stored as it came', () => {
    const body = new Uint8Array(zlib.gzipSync('<p>plain page</p>'))
    const headers = { 'Content-Type': ['text/html'], 'Content-Encoding': ['gzip'] }
    const input = captureOf(headers, body)
    expect(processCapture(input, options(['body.password'])).live.body).toBe(input.live.body)
  })
})
