/**
 * One raw-server connection against a handler that answers at once, within
 * the call that hands it the request (a Problem the pipeline gives before
 * live is asked): the connection reads its next request in its own loop,
 * not by a call per request answered, and reads none after a request that
 * asked to close; and a response written from the middle of the buffer it
 * came in reaches the client whole.
 */
import { afterEach, expect, test } from 'bun:test'
import type { Problem } from '../../../../src/errors/problem.ts'
import type { Framing, ResponseHead } from '../../../../src/proxy/upstream/response-head.ts'
import type { ClientSide } from '../../../../src/proxy/pipeline/relay-live.ts'
import type { RelayedRequest } from '../../../../src/proxy/pipeline/shadow-handler.ts'
import { serveRaw, type RawServer } from '../../../../src/proxy/server/raw-server.ts'

const AT_ONCE: Problem = { type: '/errors/bad-gateway', title: 'Bad gateway', status: 502, detail: 'answered at once' }
const REQUEST = 'GET / HTTP/1.1\r\nHost: a\r\n\r\n'

let server: RawServer | undefined

afterEach(async () => {
  await server?.stop(1000)
  server = undefined
})

/** A raw server whose every request is answered within `relay` itself. */
function serveAtOnce(): { readonly server: RawServer; readonly targets: string[] } {
  const targets: string[] = []
  const server = serveWith((request, side) => {
    targets.push(request.target)
    side.problem(AT_ONCE)
    side.finished()
  })
  return { server, targets }
}

function serveWith(relay: (request: RelayedRequest, side: ClientSide) => void): RawServer {
  server = serveRaw({
    hostname: '127.0.0.1',
    port: 0,
    reusePort: false,
    idleTimeoutSeconds: 10,
    relay,
    fallback: () => Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('spliced', { status: 500 }) }),
  })
  return server
}

/** Writes `bytes` on one connection and reads until `enough` says so, the connection closes, or 10 s pass. */
async function exchange(port: number, bytes: string, enough: (received: string) => boolean): Promise<{ received: string; closed: boolean }> {
  let received = ''
  let closed = false
  const { promise, resolve } = Promise.withResolvers<void>()
  const timer = setTimeout(resolve, 10_000)
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      data(_socket, chunk) {
        received += chunk.toString('latin1')
        if (enough(received)) resolve()
      },
      close() {
        closed = true
        resolve()
      },
      error: () => resolve(),
    },
  })
  let offset = 0
  const all = Buffer.from(bytes, 'latin1')
  // Written whole, in order, whatever the socket takes at once (bounded by the timer above).
  while (offset < all.byteLength && !closed) {
    offset += Math.max(0, socket.write(all.subarray(offset)))
    if (offset < all.byteLength) await Bun.sleep(1)
  }
  await promise
  clearTimeout(timer)
  socket.end()
  return { received, closed }
}

function count(text: string, part: string): number {
  return text.split(part).length - 1
}

test('30,000 pipelined requests answered at once are all answered, in order, on one connection', async () => {
  const { server, targets } = serveAtOnce()
  const requests = 30_000
  const bytes = Array.from({ length: requests }, (_, i) => `GET /${i} HTTP/1.1\r\nHost: a\r\n\r\n`).join('')
  const { received } = await exchange(server.port, bytes, (text) => count(text, 'HTTP/1.1 502') >= requests)
  expect(count(received, 'HTTP/1.1 502')).toBe(requests)
  expect(targets.length).toBe(requests)
  expect(targets[0]).toBe('/0')
  expect(targets[requests - 1]).toBe(`/${requests - 1}`)
})

test('no request after one that asked to close is read, when the first is answered at once', async () => {
  const { server, targets } = serveAtOnce()
  const { received, closed } = await exchange(server.port, `GET /first HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n${REQUEST}`, () => false)
  expect(closed).toBe(true)
  expect(count(received, 'HTTP/1.1 502')).toBe(1)
  expect(received).toContain('connection: close')
  expect(targets).toEqual(['/first'])
})

test("live's head and body that start mid-read reach the client byte for byte, the part its socket does not take at once held and written after", async () => {
  // As live's relay hands them over when an interim 1xx came first in the same read: the final head
  // starts past it, passes as it came, and its body follows in the same buffer. 16 MiB: more than the
  // socket takes in one write, so the rest is held and written from where the socket stopped.
  const body = Array.from({ length: (16 * 1024 * 1024) / 16 }, (_, i) => `${i.toString(16).padStart(15, '0')}\n`).join('')
  const interim = 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n'
  const headText = `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}`
  const data = Buffer.from(`${interim}${headText}\r\n\r\n${body}`, 'latin1')
  const start = interim.length
  const end = start + headText.length + 4
  const head: ResponseHead = { status: 200, fields: { 'content-length': String(body.length) }, setCookies: [] }
  const framing: Framing = { kind: 'length', length: body.length }
  const answered = serveWith((_request, side) => {
    side.head(head, 'HTTP/1.1 200 OK', framing, { data, start, end, text: headText })
    side.body(data, end, data.byteLength)
    side.end()
    side.finished()
  })
  const expected = `${headText}\r\n\r\n${body}`
  const { received } = await exchange(answered.port, REQUEST, (text) => text.length >= expected.length)
  expect(received.length).toBe(expected.length)
  expect(received === expected).toBe(true)
})
