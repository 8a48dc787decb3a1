/**
 * createRequest with bodies that cannot be decoded, on a gate that redacts
 * a body field (docs/diff.md "Redaction and what is stored"): a truncated
 * gzip labelled application/json, a corrupt br and a truncated deflate are
 * stored as `[REDACTED]`, never as received; without a redacted body field
 * they are stored byte for byte.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import zlib from 'node:zlib'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

interface Message {
  readonly body: string
  readonly headers: Record<string, string[]>
}
type Detail = Message & {
  readonly live_response: Message
  readonly shadow_response: Message
  readonly diff: { content: unknown[] }
}

const SECRET = 'card-4111-1111-1111-1111'
/** Padding that compresses poorly, so that half a stream still holds the secret. */
const PADDING = Array.from({ length: 500 }, (_, i) => ((i * 2654435761) >>> 0).toString(16)).join('')
const DOCUMENT = JSON.stringify({ card: SECRET, user: 'ann', padding: PADDING })
const half = (bytes: Uint8Array) => bytes.subarray(0, Math.floor(bytes.byteLength / 2))
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')
const fromB64 = (text: string) => Buffer.from(text, 'base64')

/** What gunzip makes of as much as it can read of the stored bytes: the leak once observed. */
function partialGunzip(bytes: Uint8Array): string {
  try {
    return zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString('utf8')
  } catch {
    return ''
  }
}

const CODED = [
  { coding: 'gzip', body: half(zlib.gzipSync(DOCUMENT)), what: 'a truncated gzip' },
  { coding: 'br', body: half(zlib.brotliCompressSync(DOCUMENT)), what: 'a truncated br' },
  { coding: 'deflate', body: half(zlib.deflateSync(DOCUMENT)), what: 'a truncated deflate' },
  { coding: 'gzip', body: zlib.brotliCompressSync(DOCUMENT), what: 'br bytes labelled gzip' },
] as const

/** A capture whose request and live bodies are `body`, coded as `coding`; the shadow's is plain JSON. */
function undecodableCapture(coding: string, body: Uint8Array) {
  const headers = { 'Content-Type': ['application/json'], 'Content-Encoding': [coding] }
  const capture = captureBody({ method: 'POST', requestHeaders: headers, liveHeaders: headers, shadow: JSON.parse(DOCUMENT) })
  capture.body = b64(body)
  ;(capture.live_response as { body: string }).body = b64(body)
  return capture
}

describe.each(BACKENDS)('undecodable bodies under body redaction on %s', (backend) => {
  let t: TestApi
  let redacting: string
  let plain: string

  /** A gate of its own: live and shadow URLs identify a gate, so each gets its own port. */
  const gate = async (name: string, port: number): Promise<string> => {
    const res = await t.call('POST', '/gates', { name, live_url: `http://live:${port}`, shadow_url: `http://shadow:${port}` })
    expect(res.status).toBe(201)
    return ((await res.json()) as { data: { id: string } }).data.id
  }
  const store = async (gateId: string, capture: unknown): Promise<Detail> => {
    const res = await t.call('POST', `/gates/${gateId}/requests`, capture)
    expect(res.status).toBe(201)
    const { id } = ((await res.json()) as { data: { id: string } }).data
    return ((await (await t.call('GET', `/gates/${gateId}/requests/${id}`)).json()) as { data: Detail }).data
  }

  beforeAll(async () => {
    t = await startTestApi(backend)
    redacting = await gate('redacts-card', 1)
    await t.call('PATCH', `/gates/${redacting}`, { redacted_fields: ['body.card'] })
    plain = await gate('redacts-headers-only', 2)
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  for (const { coding, body, what } of CODED) {
    test(`${what} (Content-Encoding: ${coding}) is stored as [REDACTED], request and live alike`, async () => {
      const stored = await store(redacting, undecodableCapture(coding, body))
      for (const message of [stored, stored.live_response]) {
        expect(fromB64(message.body).toString('utf8')).toBe('[REDACTED]')
        expect(message.headers['Content-Encoding']).toBeUndefined()
      }
      expect(partialGunzip(fromB64(stored.live_response.body))).not.toContain(SECRET)
      expect(JSON.parse(fromB64(stored.shadow_response.body).toString('utf8')).card).toBe('[REDACTED]')
      expect(JSON.stringify(stored)).not.toContain(SECRET)
    })
  }

  test('the premise: a truncated gzip gives its secret away to a partial gunzip', () => {
    expect(partialGunzip(CODED[0].body)).toContain(SECRET)
  })

  test('without a redacted body field, the undecodable body is stored byte for byte', async () => {
    const body = CODED[0].body
    const stored = await store(plain, undecodableCapture('gzip', body))
    expect(new Uint8Array(fromB64(stored.live_response.body))).toEqual(new Uint8Array(body))
    expect(stored.live_response.headers['Content-Encoding']).toEqual(['gzip'])
  })
})
