/**
 * The two shadow clients, ours over `Bun.connect` (http: shadows) and the
 * one over fetch (https: shadows), against the same scripted responses on
 * 127.0.0.1: the same status, header map and body bytes, or the same
 * error kind (and, where fetch says enough, the same text), so that which
 * one a shadow gets never changes a diff.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { AbortFlag, type AbortLike } from '../../../../src/async/abort-flag.ts'
import fc from 'fast-check'
import { gzipSync } from 'node:zlib'
import { createUpstreamPool, DEFAULT_HTTP_CLIENT, type UpstreamPool } from '../../../../src/proxy/index.ts'
import { TimeoutReason, type UpstreamError } from '../../../../src/proxy/upstream/upstream-error.ts'
import { shadowOverFetch } from '../../../../src/proxy/upstream/fetch-client.ts'
import type { ShadowClient } from '../../../../src/proxy/upstream/upstream-client.ts'

const gzip = gzipSync(JSON.stringify({ id: 1, items: Array.from({ length: 50 }, (_, i) => ({ i })) }))

/** Raw responses by path, written as they are; the property below adds its own. */
const RESPONSES: Record<string, Buffer> = {
  '/json': Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}'),
  '/gzip': Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${gzip.length}\r\n\r\n`),
    gzip,
  ]),
  '/chunked': Buffer.from('HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n4\r\nabcd\r\n3\r\nefg\r\n0\r\n\r\n'),
  '/fields': Buffer.from(
    'HTTP/1.1 200 OK\r\nVary: Accept\r\nvary: Origin\r\nSet-Cookie: a=1; Path=/\r\nSet-Cookie: b=2\r\nX-Empty:\r\nETag: "x"\r\nContent-Length: 2\r\n\r\nok',
  ),
  '/no-content': Buffer.from('HTTP/1.1 204 No Content\r\nX-Id: 7\r\n\r\n'),
  '/object-names': Buffer.from('HTTP/1.1 200 OK\r\nConstructor: c1\r\nToString: t\r\nContent-Length: 0\r\n\r\n'),
  '/bare-lf': Buffer.from('HTTP/1.1 200 OK\nContent-Length: 2\nX-A: 1\n\nok'),
  '/latin1': Buffer.from('HTTP/1.1 200 OK\r\nX-A: caf\xe9\r\nContent-Length: 0\r\n\r\n', 'latin1'),
  '/error': Buffer.from('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Length: 4\r\n\r\ndown'),
  '/large': Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n${'x'.repeat(100)}`),
  '/large-chunked': Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n64\r\n${'y'.repeat(100)}\r\n0\r\n\r\n`),
}

/** Answers written by a script instead of at once: by path. */
const SCRIPTED: Record<string, (socket: Bun.Socket<undefined>) => void> = {
  '/silent': () => {},
  '/slow-body': (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab')
    setTimeout(() => socket.write('cd'), 300)
  },
}

let listener: Bun.TCPSocketListener<undefined>
let pool: UpstreamPool
let ours: ShadowClient
let viaFetch: ShadowClient

beforeAll(() => {
  listener = Bun.listen({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      data(socket, data) {
        const path = data.toString('latin1').split(' ')[1]!
        const script = SCRIPTED[path]
        if (script !== undefined) return script(socket)
        socket.write(RESPONSES[path] ?? Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'))
      },
    },
  })
  const url = `http://127.0.0.1:${listener.port}`
  pool = createUpstreamPool({ settings: { ...DEFAULT_HTTP_CLIENT, shadowClient: 'http1' } })
  ours = pool.shadowClient(url)
  viaFetch = shadowOverFetch(pool.client('shadow', url))
})

afterAll(() => {
  pool.close()
  listener.stop(true)
})

const request = (pathAndQuery: string) => ({
  method: 'GET',
  pathAndQuery,
  headers: new Headers(),
  body: null,
  signal: new AbortController().signal,
})

/** What a send gave: the response, or the error's kind and text. */
const outcome = (client: ShadowClient, path: string, bound = 0, signal?: AbortLike) =>
  client.send(signal === undefined ? request(path) : { ...request(path), signal }, bound).then(
    (response) => response,
    (error: UpstreamError) => ({ kind: error.kind, message: error.message }),
  )

describe('both shadow clients read a response alike', () => {
  test.each(Object.keys(RESPONSES))('%s', async (path) => {
    const bound = path.startsWith('/large') ? 50 : 0
    const [a, b] = await Promise.all([outcome(ours, path, bound), outcome(viaFetch, path, bound)])
    if (a.kind === 'complete' && b.kind === 'complete') {
      expect({ ...a, latencyMs: 0 }).toEqual({ ...b, latencyMs: 0 })
      expect(Buffer.from(a.body).equals(Buffer.from(b.body))).toBe(true)
    } else {
      expect(a).toEqual(b)
    }
    expect(a).toMatchObject(
      path.startsWith('/large') ? { kind: 'too_large', message: 'shadow: response too large (body over 50 bytes)' } : { kind: 'complete' },
    )
  })
})

describe('both shadow clients refuse a hostile shadow alike', () => {
  const HOSTILE: Record<string, [wire: string, kind: UpstreamError['kind'], message: string]> = {
    '/status-0': ['HTTP/1.1 000 X\r\nContent-Length: 2\r\n\r\nok', 'bad_response', 'shadow: bad response: status 0 outside 100..599'],
    '/status-99': ['HTTP/1.1 099 X\r\nContent-Length: 2\r\n\r\nok', 'bad_response', 'shadow: bad response: status 99 outside 100..599'],
    '/status-600': ['HTTP/1.1 600 X\r\nContent-Length: 2\r\n\r\nok', 'bad_response', 'shadow: bad response: status 600 outside 100..599'],
    '/status-999': ['HTTP/1.1 999 X\r\nContent-Length: 2\r\n\r\nok', 'bad_response', 'shadow: bad response: status 999 outside 100..599'],
    '/cl-te': [
      'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
      'bad_response',
      'shadow: bad response: Content-Length with Transfer-Encoding',
    ],
    '/te-cl': [
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\nok\r\n0\r\n\r\n',
      'bad_response',
      'shadow: bad response: Content-Length with Transfer-Encoding',
    ],
    '/big-head': [
      `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(70_000)}\r\nContent-Length: 2\r\n\r\nok`,
      'too_large',
      'shadow: response too large (head over 65536 bytes)',
    ],
    '/endless-chunked': [
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${`400\r\n${'x'.repeat(1024)}\r\n`.repeat(100)}`,
      'too_large',
      'shadow: response too large (body over 50000 bytes)',
    ],
  }

  test.each(Object.keys(HOSTILE))('%s', async (path) => {
    const [wire, kind, message] = HOSTILE[path]!
    RESPONSES[path] = Buffer.from(wire, 'latin1')
    const [a, b] = await Promise.all([outcome(ours, path, 50_000), outcome(viaFetch, path, 50_000)])
    delete RESPONSES[path]
    expect({ ours: a, fetch: b }).toEqual({ ours: { kind, message }, fetch: { kind, message } })
  })

  // An AbortFlag is what a comparison gives the shadow's exchange; fetch gets a real signal made from it.
  test.each(['an AbortSignal', 'an AbortFlag'])('a response that never ends: both time out with the same text, through %s', async (kind) => {
    RESPONSES['/never-ends'] = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial')
    const timedOut = (): AbortLike => {
      const controller = kind === 'an AbortFlag' ? new AbortFlag() : new AbortController()
      setTimeout(() => controller.abort(new TimeoutReason(200)), 200)
      return controller instanceof AbortFlag ? controller : controller.signal
    }
    const [a, b] = await Promise.all([outcome(ours, '/never-ends', 0, timedOut()), outcome(viaFetch, '/never-ends', 0, timedOut())])
    delete RESPONSES['/never-ends']
    const timeout = { kind: 'timeout' as const, message: 'shadow: timed out after 200ms' }
    expect({ ours: a, fetch: b }).toEqual({ ours: timeout, fetch: timeout })
  })
})

describe('both shadow clients bound the response head alike', () => {
  test('a shadow that never answers: both time out at the head timeout with the same text', async () => {
    const url = `http://127.0.0.1:${listener.port}`
    const [a, b] = await Promise.all([
      outcome(pool.shadowClient(url, 150), '/silent'),
      outcome(shadowOverFetch(pool.client('shadow', url), 150), '/silent'),
    ])
    const timeout = { kind: 'timeout' as const, message: 'shadow: timed out after 150ms waiting for the response head' }
    expect({ ours: a, fetch: b }).toEqual({ ours: timeout, fetch: timeout })
  })

  test('a body slower than the head timeout: both read it whole', async () => {
    const url = `http://127.0.0.1:${listener.port}`
    const [a, b] = await Promise.all([
      outcome(pool.shadowClient(url, 100), '/slow-body'),
      outcome(shadowOverFetch(pool.client('shadow', url), 100), '/slow-body'),
    ])
    expect(a.kind === 'complete' && Buffer.from(a.body).toString()).toBe('abcd')
    expect(b.kind === 'complete' && Buffer.from(b.body).toString()).toBe('abcd')
  })
})

describe('both shadow clients refuse the same malformed responses', () => {
  const MALFORMED: Record<string, string> = {
    '/cl-list': 'HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok',
    '/cl-bad': 'HTTP/1.1 200 OK\r\nContent-Length: 2x\r\n\r\nok',
    '/chunk-space': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nok\r\n0\r\n\r\n',
    '/value-cr': 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 2\r\n\r\nok',
  }

  test.each(Object.keys(MALFORMED))('%s', async (path) => {
    RESPONSES[path] = Buffer.from(MALFORMED[path]!, 'latin1')
    const [a, b] = await Promise.all([outcome(ours, path), outcome(viaFetch, path)])
    delete RESPONSES[path]
    // The same kind; the texts differ (fetch says only that it refused the bytes).
    expect({ ours: a.kind, fetch: b.kind }).toEqual({ ours: 'bad_response', fetch: 'bad_response' })
  })

  test("SVC_APP_SHADOW_CLIENT picks an http: shadow's client (told apart by fetch's text for such bytes)", async () => {
    RESPONSES['/which'] = Buffer.from(MALFORMED['/value-cr']!, 'latin1')
    const url = `http://127.0.0.1:${listener.port}`
    const viaSetting = createUpstreamPool({ settings: { ...DEFAULT_HTTP_CLIENT, shadowClient: 'fetch' } })
    try {
      const [a, b] = await Promise.all([outcome(ours, '/which'), outcome(viaSetting.shadowClient(url), '/which')])
      expect(a).toMatchObject({ kind: 'bad_response', message: 'shadow: bad response: bad value of header "x-a"' })
      expect(b).toMatchObject({ kind: 'bad_response', message: expect.stringContaining('(fetch: ') })
    } finally {
      delete RESPONSES['/which']
      viaSetting.close()
    }
  })
})

describe('both shadow clients read generated responses alike', () => {
  const name = fc.constantFrom('x-a', 'X-A', 'x-b', 'vary', 'set-cookie', 'cache-control', 'x-request-id', 'link')
  const value = fc.stringMatching(/^[!-~]([ -~]{0,20}[!-~])?$/)
  const response = fc.record({
    status: fc.constantFrom(200, 201, 202, 204, 301, 400, 404, 500, 503),
    fields: fc.array(fc.tuple(name, value), { maxLength: 8 }),
    body: fc.uint8Array({ maxLength: 600 }),
    chunks: fc.array(fc.integer({ min: 1, max: 200 }), { maxLength: 5 }),
    chunked: fc.boolean(),
  })

  function wire(r: { status: number; fields: [string, string][]; body: Uint8Array; chunks: number[]; chunked: boolean }): Buffer {
    let head = `HTTP/1.1 ${r.status} Status\r\n`
    for (const [n, v] of r.fields) head += `${n}: ${v}\r\n`
    if (r.status === 204) return Buffer.from(`${head}\r\n`)
    if (!r.chunked) return Buffer.concat([Buffer.from(`${head}content-length: ${r.body.length}\r\n\r\n`), r.body])
    const parts: Uint8Array[] = [Buffer.from(`${head}transfer-encoding: chunked\r\n\r\n`)]
    let offset = 0
    for (const size of [...r.chunks, r.body.length]) {
      const piece = r.body.subarray(offset, Math.min(r.body.length, offset + size))
      offset += piece.length
      if (piece.length > 0) parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'))
    }
    parts.push(Buffer.from('0\r\n\r\n'))
    return Buffer.concat(parts)
  }

  test('the same status, header map and body bytes', async () => {
    let n = 0
    await fc.assert(
      fc.asyncProperty(response, async (r) => {
        const path = `/generated-${n++}`
        RESPONSES[path] = wire(r)
        const [a, b] = await Promise.all([ours.send(request(path), 0), viaFetch.send(request(path), 0)])
        delete RESPONSES[path]
        expect(a.kind).toBe('complete')
        expect({ ...a, latencyMs: 0 }).toEqual({ ...b, latencyMs: 0 })
      }),
      { numRuns: 150 },
    )
  })
})
