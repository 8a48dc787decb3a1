import { describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { captureDigest } from '../../../src/store/capture-digest.ts'
import { storableJson, type CaptureInput, type ResponseInput } from '../../../src/store/rows.ts'

const utf8 = (text: string) => new TextEncoder().encode(text)

function response(over: Partial<ResponseInput> = {}): ResponseInput {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    status_code: 200,
    headers: { 'Content-Type': ['application/json'] },
    body: utf8('{"a":1}'),
    latency_ms: 12,
    created_at: '2026-01-02T03:04:05.123456Z',
    ...over,
  }
}

const BASE: CaptureInput = {
  id: '00000000-0000-4000-8000-000000000000',
  method: 'GET',
  path: '/users/1',
  raw_query: 'a=1',
  headers: { Accept: ['application/json'], 'X-Two': ['a', 'b'] },
  body: new Uint8Array(),
  created_at: '2026-01-02T03:04:05Z',
  live_response: response(),
  shadow_response: response({ status_code: 0, body: utf8('timeout') }),
  has_diff: true,
  diff: [],
}

/**
 * Digests stored with captures must not change from one version to the
 * next: a retry of a capture stored before would be refused as another
 * capture under its id (409). Computed by the version that introduced them.
 */
const KNOWN: Array<[string, CaptureInput, string]> = [
  ['plain', BASE, 'cb2a27b70e3aad6eff49c7e921423a2ae3a970e4007a590b861ad5a4264f6860'],
  [
    'non-ASCII and a lone surrogate',
    { ...BASE, path: '/café/\ud800x', raw_query: 'q=日本', headers: { 'X-Odd': ['\udc00', 'é'] } },
    'a21313c9f01723ead047fd537dc5b7be17db6668b7bb21bae1d8b96e9ae4e381',
  ],
  ['NUL in a header value', { ...BASE, headers: { 'X-Nul': ['a\u0000b'] } }, '466a93c6d34a97ad217e1b27556e6e1825e744f96f927bff3865c327f9581d97'],
  [
    'a Date created_at, an offset and a space',
    { ...BASE, created_at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), live_response: response({ created_at: '2026-01-02 04:04:05.1+01:00' }) },
    'fab31475122f2b1bc777ad45335fb6173a756093c0d200c7cfbc683a394bb745',
  ],
  [
    'a path longer than the gathering buffer, big bodies, a latency above 2^32',
    {
      ...BASE,
      path: `/${'x'.repeat(10_000)}`,
      body: new Uint8Array(70_000).fill(7),
      live_response: response({ body: new Uint8Array(5000).fill(1), latency_ms: 2 ** 40 }),
    },
    '9bfbb3f88e48b6292d1d65c5d961e895b2e4d3e9fb5b1fcd4123fafd80b747f1',
  ],
  [
    'with a noise check',
    { ...BASE, noise_check: { repeat: response({ status_code: 201 }), result: 'noisy', ops: [] } },
    '713e146365e195c0b48a65f2388e79b6c01be4c88c5df1a65dd4306638bd5056',
  ],
]

/** The definition, piece by piece: SHA-256 over the fields, each after its length as 8 bytes big-endian. */
function reference(capture: CaptureInput): string {
  const parts: Buffer[] = []
  const field = (bytes: Uint8Array) => {
    const length = Buffer.alloc(8)
    length.writeBigUInt64BE(BigInt(bytes.byteLength))
    parts.push(length, Buffer.from(bytes))
  }
  const text = (value: string) => field(utf8(value))
  const instant = (value: Date | string) => {
    if (value instanceof Date) return `${value.getTime()}000`
    const micros = (/\.(\d+)/.exec(value)?.[1] ?? '').slice(3, 6).padEnd(3, '0')
    return `${Date.parse(value.replace(' ', 'T'))}${micros}`
  }
  const responseFields = (r: ResponseInput) => {
    text(String(r.status_code))
    text(JSON.stringify(storableJson(r.headers)))
    field(r.body)
    text(String(r.latency_ms))
    text(instant(r.created_at))
  }
  text(capture.method)
  text(capture.path)
  text(capture.raw_query)
  text(JSON.stringify(storableJson(capture.headers)))
  field(capture.body)
  text(instant(capture.created_at))
  responseFields(capture.live_response)
  responseFields(capture.shadow_response)
  if (capture.noise_check !== undefined) {
    text('live_repeat_response')
    responseFields(capture.noise_check.repeat)
  }
  return createHash('sha256').update(Buffer.concat(parts)).digest('hex')
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

describe('captureDigest', () => {
  test.each(KNOWN)('keeps the digest stored with earlier captures: %s', (_name, capture, digest) => {
    expect(hex(captureDigest(capture))).toBe(digest)
    expect(reference(capture)).toBe(digest)
  })

  test('is SHA-256 over the length-prefixed fields, whatever their text and sizes', () => {
    // Lone surrogates, astral characters, and lengths on both sides of the buffer that gathers short fields.
    const text = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'é', '日', '😀', '\ud800', '\udfff', '\0'), maxLength: 40 }),
      fc.integer({ min: 4000, max: 9000 }).map((n) => 'p'.repeat(n)),
    )
    const bytes = fc.uint8Array({ maxLength: 6000 })
    const headers = fc.dictionary(text, fc.array(text, { maxLength: 2 }), { maxKeys: 3 })
    const side = fc.record({ status: fc.integer({ min: 0, max: 599 }), headers, body: bytes })
    fc.assert(
      fc.property(text, text, headers, bytes, side, side, fc.option(side, { nil: undefined }), (path, query, reqHeaders, body, live, shadow, repeat) => {
        const capture: CaptureInput = {
          ...BASE,
          path,
          raw_query: query,
          headers: reqHeaders,
          body,
          live_response: response({ status_code: live.status, headers: live.headers, body: live.body }),
          shadow_response: response({ status_code: shadow.status, headers: shadow.headers, body: shadow.body }),
          ...(repeat && { noise_check: { repeat: response({ status_code: repeat.status, headers: repeat.headers, body: repeat.body }), result: 'noisy' as const, ops: [] } }),
        }
        expect(hex(captureDigest(capture))).toBe(reference(capture))
      }),
      { numRuns: 300 },
    )
  })

  test('gives the same digest when computed again (the gathering buffer is reused)', () => {
    const first = hex(captureDigest(KNOWN[4]![1]))
    captureDigest(KNOWN[1]![1])
    expect(hex(captureDigest(KNOWN[4]![1]))).toBe(first)
  })
})
