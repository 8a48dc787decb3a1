/**
 * The raw server (SVC_APP_PROXY_SERVER=raw) on the wire: what it does that
 * Bun.serve does not show (pipelined requests, the splice to Bun.serve,
 * live's framings passed on, the client's backpressure and departure, the
 * graceful stop, the fields as the client sent them). It is the default
 * server: every other proxy suite runs against it, and
 * `bun-server-suite.test.ts` runs them on Bun.serve as well.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startHostileUpstream, type HostileUpstream } from '../../../support/hostile-upstream.ts'
import { freePort, startUpstream, waitFor, type TestUpstream } from '../../../support/upstreams.ts'
import { standaloneEnv, startTestProxy, type ProxyUnderTest } from '../proxy-harness.ts'

const LARGE_BYTES = 4 * 1024 * 1024
/** Lines of 16 bytes, each its own number: a byte out of place or a piece written twice does not read back the same. */
const LARGE = Array.from({ length: LARGE_BYTES / 16 }, (_, i) => `${i.toString(16).padStart(15, '0')}\n`).join('')
/** A head with nothing to drop or re-frame: names in their case, a field repeated, one length. */
const AS_SENT = 'HTTP/1.1 200 Fine\r\nX-Mixed-Case: A\r\nX-Twice: 1\r\nX-Twice: 2\r\nSet-Cookie: a=1\r\nContent-Length: 2\r\n\r\nok'

let live: TestUpstream
let shadow: TestUpstream
let hostile: HostileUpstream

beforeAll(async () => {
  live = await startUpstream('live')
  shadow = await startUpstream('shadow')
  // From Bun.serve: the hostile upstream writes what the socket takes at once and no more.
  live.route('/large', () => new Response(LARGE))
  // One request per connection (the hostile upstream reads no second one): each answer says close.
  hostile = startHostileUpstream({
    '/chunked': (c) => c.write('HTTP/1.1 200 OK\r\nConnection: close\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n'),
    '/until-close': (c) => {
      c.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nread until ')
      c.write('the connection closes')
      c.end()
    },
    '/no-content': (c) => c.write('HTTP/1.1 204 No Content\r\nConnection: close\r\nX-Kept: yes\r\n\r\n'),
    '/hop-by-hop': (c) =>
      c.write(
        'HTTP/1.1 201 Made Here\r\nConnection: close, X-Private\r\nX-Private: secret\r\nKeep-Alive: timeout=5\r\nProxy-Authenticate: Basic\r\n' +
          'Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 2\r\n\r\nok',
      ),
    '/endless': async (c) => {
      c.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 100000000\r\n\r\n')
      for (let i = 0; i < 400 && c.open(); i++) {
        c.write('z'.repeat(1024))
        await Bun.sleep(5)
      }
      c.end()
    },
    '/late-body': async (c) => {
      c.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 4\r\n\r\n')
      await Bun.sleep(800)
      c.write('late')
    },
    '/as-sent': (c) => {
      c.write(AS_SENT)
      c.end()
    },
    '/slow': async (c) => {
      await Bun.sleep(300)
      c.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 4\r\n\r\nslow')
    },
  })
})

afterAll(async () => {
  hostile.stop()
  await live.stop()
  await shadow.stop()
})

async function withRawProxy(liveUrl: string, body: (proxy: ProxyUnderTest) => Promise<void>, extra: Record<string, string> = {}): Promise<void> {
  const proxy = await startTestProxy(standaloneEnv(liveUrl, shadow.url, { SVC_APP_PROXY_SERVER: 'raw', ...extra }))
  try {
    await body(proxy)
  } finally {
    await proxy.stop()
  }
}

/** A client on one TCP connection: writes `bytes`, reads until `done(received)` says so or the connection closes. */
async function rawClient(
  url: string,
  bytes: string,
  done: (received: string) => boolean,
  options: { pauseMs?: number; then?: [ready: (received: string) => boolean, bytes: string] } = {},
): Promise<{ text: string; closed: boolean }> {
  const { port } = new URL(url)
  let text = ''
  let closed = false
  let finish!: () => void
  const finished = new Promise<void>((resolve) => (finish = resolve))
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port: Number(port),
    socket: {
      data(socket, chunk) {
        text += chunk.toString('latin1')
        const then = options.then
        if (then !== undefined && then[0](text)) {
          options.then = undefined
          socket.write(then[1])
        }
        if (done(text)) finish()
      },
      close() {
        closed = true
        finish()
      },
    },
  })
  if (options.pauseMs !== undefined) {
    // A client that does not read for a while: the proxy must hold back, not buffer without bound.
    socket.pause()
    setTimeout(() => socket.resume(), options.pauseMs)
  }
  socket.write(bytes)
  const timeout = setTimeout(finish, 10_000)
  await finished
  clearTimeout(timeout)
  // Read before ending: Bun calls `close` from within `end()`.
  const closedByProxy = closed
  socket.end()
  return { text, closed: closedByProxy }
}

/** How many complete responses with a Content-Length body `text` holds. */
function responsesIn(text: string): number {
  let count = 0
  let at = 0
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at)
    if (end === -1) return count
    const length = /content-length: (\d+)/i.exec(text.slice(at, end))
    const next = end + 4 + Number(length?.[1] ?? 0)
    if (next > text.length) return count
    count++
    at = next
  }
}

describe('the raw server', () => {
  test('answers pipelined requests in order, each compared and counted', async () => {
    await withRawProxy(live.url, async (proxy) => {
      live.requests.length = 0
      const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: proxy.test\r\n\r\n`
      const { text } = await rawClient(proxy.url, request('/first?n=1') + request('/second?n=2'), (t) => responsesIn(t) >= 2)
      expect(responsesIn(text)).toBe(2)
      expect(text.indexOf('"path":"/first"')).toBeLessThan(text.indexOf('"path":"/second"'))
      const requests = await live.waitForRequests(2)
      expect(requests.map((r) => r.target)).toEqual(['/first?n=1', '/second?n=2'])
      expect(requests[0]!.headers.get('x-forwarded-for')).toBe('127.0.0.1')
      expect(requests[0]!.headers.get('x-forwarded-host')).toBe('proxy.test')
      const accounting = await proxy.settled()
      expect(accounting.received).toBe(2)
      expect(accounting.compared).toBe(2)
    })
  })

  test('hands a request it does not take to Bun.serve, with the rest of its connection and the client address', async () => {
    await withRawProxy(live.url, async (proxy) => {
      live.requests.length = 0
      const chunked = 'POST /upload HTTP/1.1\r\nHost: proxy.test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'
      const plain = 'GET /after HTTP/1.1\r\nHost: proxy.test\r\n\r\n'
      const first = 'GET /before HTTP/1.1\r\nHost: proxy.test\r\n\r\n'
      // The plain request after the chunked one waits for its answer: Bun.serve answers no pipelined request.
      const answers = (t: string) => (t.match(/HTTP\/1\.1 200/g) ?? []).length
      const { text } = await rawClient(proxy.url, first + chunked, (t) => answers(t) >= 3 && t.endsWith('}'), { then: [(t) => answers(t) >= 2 && t.endsWith('}'), plain] })
      expect(answers(text)).toBe(3)
      const requests = await live.waitForRequests(3)
      expect(requests.map((r) => r.target)).toEqual(['/before', '/upload', '/after'])
      expect(new TextDecoder().decode(requests[1]!.body)).toBe('abc')
      // Bun.serve saw the splice as its peer; live sees the client's address all the same.
      for (const r of requests) expect(r.headers.get('x-forwarded-for')).toBe('127.0.0.1')
      expect((await proxy.settled()).received).toBe(3)
    })
  })

  test('passes on live\'s framings: chunked and read-until-close bodies re-chunked, a 204 without one, the connection kept', async () => {
    await withRawProxy(hostile.url, async (proxy) => {
      for (const [path, body] of [
        ['/chunked', 'abcdefg'],
        ['/until-close', 'read until the connection closes'],
        ['/no-content', ''],
      ] as const) {
        const res = await fetch(`${proxy.url}${path}`)
        expect(await res.text()).toBe(body)
      }
      const noContent = await fetch(`${proxy.url}/no-content`)
      expect(noContent.status).toBe(204)
      expect(noContent.headers.get('x-kept')).toBe('yes')
      // Two requests on one connection after a body live ended by closing its own.
      const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: proxy.test\r\n\r\n`
      const twice = request('/until-close') + request('/until-close')
      const { text, closed } = await rawClient(proxy.url, twice, (t) => t.split('0\r\n\r\n').length === 3)
      expect(text.split('transfer-encoding: chunked').length).toBe(3)
      expect(text.split('20\r\nread until the connection closes\r\n0\r\n\r\n').length).toBe(3)
      expect(closed).toBe(false)
    })
  })

  test('a head with nothing to drop or re-frame reaches the client byte for byte, its body with it', async () => {
    await withRawProxy(hostile.url, async (proxy) => {
      const { text } = await rawClient(proxy.url, 'GET /as-sent HTTP/1.1\r\nHost: proxy.test\r\n\r\n', (t) => responsesIn(t) >= 1)
      expect(text).toBe(AS_SENT)
    })
  })

  test('drops live\'s hop-by-hop fields and those its Connection names, keeps each Set-Cookie and the reason phrase', async () => {
    await withRawProxy(hostile.url, async (proxy) => {
      const { text } = await rawClient(proxy.url, 'GET /hop-by-hop HTTP/1.1\r\nHost: proxy.test\r\n\r\n', (t) => responsesIn(t) >= 1)
      const head = text.slice(0, text.indexOf('\r\n\r\n')).toLowerCase()
      expect(text.startsWith('HTTP/1.1 201 Made Here\r\n')).toBe(true)
      for (const gone of ['connection:', 'x-private', 'keep-alive', 'proxy-authenticate']) expect(head).not.toContain(gone)
      expect(head).toContain('set-cookie: a=1\r\nset-cookie: b=2')
    })
  })

  /** Sends one request with fields of every kind through a raw proxy; the heads live and the shadow got. */
  async function headsSent(extra: Record<string, string> = {}): Promise<{ live: string; shadow: string }> {
    const heads: Record<string, string> = {}
    /** An upstream that keeps the head it was sent and answers `ok`. */
    const recorder = (name: string) =>
      Bun.listen({
        hostname: '127.0.0.1',
        port: 0,
        socket: {
          data(socket, chunk) {
            heads[name] = (heads[name] ?? '') + chunk.toString('latin1')
            if (heads[name]!.includes('\r\n\r\n')) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
          },
        },
      })
    const liveRecorder = recorder('live')
    const shadowRecorder = recorder('shadow')
    const proxy = await startTestProxy(
      standaloneEnv(`http://127.0.0.1:${liveRecorder.port}`, `http://127.0.0.1:${shadowRecorder.port}`, { SVC_APP_PROXY_SERVER: 'raw', ...extra }),
    )
    try {
      const request =
        'GET /order HTTP/1.1\r\nHost: shop.example\r\nX-B: 1\r\nConnection: keep-alive, X-Drop\r\nX-Drop: no\r\nAccept: */*\r\n' +
        'X-B: 2\r\nX-SVC-Mode: repeat\r\nCookie: a=1\r\nCookie: b=2\r\nTE: trailers\r\n\r\n'
      const { text } = await rawClient(proxy.url, request, (received) => received.endsWith('ok'))
      expect(text.startsWith('HTTP/1.1 200 OK')).toBe(true)
      await waitFor(() => heads.shadow?.includes('\r\n\r\n') || undefined)
      return { live: heads.live!, shadow: heads.shadow! }
    } finally {
      await proxy.stop()
      liveRecorder.stop(true)
      shadowRecorder.stop(true)
    }
  }

  /** The fields of `head` that came from the client or the forwarding rules, lower case, in order. */
  const clientFields = (head: string) =>
    head
      .split('\r\n')
      .slice(1)
      .map((line) => line.replace(/^[^:]+/, (name) => name.toLowerCase()))
      .filter((line) => /^(x-b|x-drop|accept|cookie|te|x-svc-mode|x-forwarded-[a-z]+):/.test(line))
  const FORWARDED = ['x-forwarded-for: 127.0.0.1', 'x-forwarded-host: shop.example', 'x-forwarded-proto: http']

  test("live and the shadow get the client's fields in the order sent, a repeated one as sent; hop-by-hop ones and X-Svc-Mode dropped", async () => {
    const heads = await headsSent()
    const sent = ['x-b: 1', 'accept: */*', 'x-b: 2', 'cookie: a=1', 'cookie: b=2', ...FORWARDED]
    expect(clientFields(heads.live)).toEqual(sent)
    expect(clientFields(heads.shadow)).toEqual([...sent, 'x-svc-mode: shadow'])
  })

  test('with the shadow on fetch, the shadow gets the same fields through Headers, X-Svc-Mode once', async () => {
    const heads = await headsSent({ SVC_APP_SHADOW_CLIENT: 'fetch' })
    expect(clientFields(heads.live)).toEqual(['x-b: 1', 'accept: */*', 'x-b: 2', 'cookie: a=1', 'cookie: b=2', ...FORWARDED])
    // Headers sorts the names and joins a repeated field (a Cookie with "; ").
    expect(clientFields(heads.shadow).sort()).toEqual(['accept: */*', 'cookie: a=1; b=2', 'x-b: 1, 2', ...FORWARDED, 'x-svc-mode: shadow'].sort())
  })

  test('says and does close when the client asks', async () => {
    await withRawProxy(live.url, async (proxy) => {
      const { text, closed } = await rawClient(proxy.url, 'GET /x HTTP/1.1\r\nHost: proxy.test\r\nConnection: close\r\n\r\n', () => false)
      expect(text.toLowerCase()).toContain('connection: close')
      expect(responsesIn(text)).toBe(1)
      expect(closed).toBe(true)
    })
  })

  test('holds live back while the client does not read, and the client gets every byte', async () => {
    await withRawProxy(
      live.url,
      async (proxy) => {
        const { text } = await rawClient(proxy.url, 'GET /large HTTP/1.1\r\nHost: proxy.test\r\n\r\n', (t) => responsesIn(t) >= 1, { pauseMs: 300 })
        const body = text.slice(text.indexOf('\r\n\r\n') + 4)
        expect(body.length).toBe(LARGE_BYTES)
        expect(body === LARGE).toBe(true)
        const accounting = await proxy.settled()
        expect(accounting.received).toBe(1)
        // 4 MiB is under SVC_APP_MAX_BODY_SIZE: compared (the shadow answers otherwise: an error or a diff).
        expect(accounting.compared).toBe(1)
        // Live's connection went back to the pool paused by the slow client: it must answer the next request.
        const next = await fetch(`${proxy.url}/next`)
        expect(next.status).toBe(200)
      },
      // One live connection, so that the next request takes the one the slow client paused.
      { SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST: '1', SVC_APP_LIVE_TIMEOUT: '2s' },
    )
  })

  test('a pipelined request handed to Bun.serve waits until the client has taken the response before it', async () => {
    await withRawProxy(live.url, async (proxy) => {
      const large = 'GET /large HTTP/1.1\r\nHost: proxy.test\r\n\r\n'
      const chunked = 'POST /upload HTTP/1.1\r\nHost: proxy.test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'
      const { text } = await rawClient(proxy.url, large + chunked, (t) => responsesIn(t) >= 2, { pauseMs: 300 })
      const first = text.indexOf('\r\n\r\n') + 4
      expect(text.slice(first, first + LARGE_BYTES) === LARGE).toBe(true)
      expect(text.slice(first + LARGE_BYTES).startsWith('HTTP/1.1 200')).toBe(true)
      expect(text).toEndWith('{"path":"/upload"}')
    })
  })

  test('a spliced connection that Bun.serve closes after a large answer still gets every byte of it (HTTP/1.0)', async () => {
    await withRawProxy(live.url, async (proxy) => {
      // HTTP/1.0 goes to Bun.serve, which closes the connection after its answer, while this client does not read yet.
      const { text, closed } = await rawClient(proxy.url, 'GET /large HTTP/1.0\r\nHost: proxy.test\r\n\r\n', () => false, { pauseMs: 300 })
      expect(closed).toBe(true)
      const body = text.slice(text.indexOf('\r\n\r\n') + 4)
      expect(body.length).toBe(LARGE_BYTES)
      expect(body === LARGE).toBe(true)
    })
  })

  test("sends live's head as soon as it is in, before a body that is slow to come", async () => {
    await withRawProxy(hostile.url, async (proxy) => {
      const started = performance.now()
      let headAt = 0
      const { text } = await rawClient(proxy.url, 'GET /late-body HTTP/1.1\r\nHost: proxy.test\r\n\r\n', (t) => {
        if (headAt === 0 && t.includes('\r\n\r\n')) headAt = performance.now()
        return t.endsWith('late')
      })
      expect(text).toEndWith('\r\n\r\nlate')
      // Live waits 800 ms between its head and its body.
      expect(headAt - started).toBeLessThan(600)
    })
  })

  test("a HEAD request's 502 has no body, and the connection stays in step", async () => {
    const refused = `http://127.0.0.1:${freePort()}`
    await withRawProxy(refused, async (proxy) => {
      const both = 'HEAD /a HTTP/1.1\r\nHost: proxy.test\r\n\r\nGET /b HTTP/1.1\r\nHost: proxy.test\r\n\r\n'
      const { text } = await rawClient(proxy.url, both, (t) => t.endsWith('}'))
      const [headAnswer, rest] = [text.slice(0, text.indexOf('\r\n\r\n') + 4), text.slice(text.indexOf('\r\n\r\n') + 4)]
      expect(headAnswer.startsWith('HTTP/1.1 502 Bad Gateway')).toBe(true)
      expect(headAnswer.toLowerCase()).toContain('content-length: ')
      expect(rest.startsWith('HTTP/1.1 502 Bad Gateway')).toBe(true)
      expect(JSON.parse(rest.slice(rest.indexOf('\r\n\r\n') + 4))).toMatchObject({ type: '/errors/bad-gateway' })
    })
  })

  test('a client that leaves mid-body ends live\'s exchange, counts the request, and the next one is answered', async () => {
    await withRawProxy(hostile.url, async (proxy) => {
      const { text } = await rawClient(proxy.url, 'GET /endless HTTP/1.1\r\nHost: proxy.test\r\n\r\n', (t) => t.includes('zzzz'))
      expect(text.startsWith('HTTP/1.1 200')).toBe(true)
      await waitFor(async () => ((await proxy.accounting()).received === 1 ? true : undefined), 5000, 'the request counted')
      const accounting = await proxy.settled()
      expect(accounting.skipped.report_failed).toBe(1)
      await waitFor(() => (hostile.openConnections === 0 ? true : undefined), 5000, "live's connection closed")
      const next = await fetch(`${proxy.url}/chunked`)
      expect(await next.text()).toBe('abcdefg')
    })
  })

  test('lets a request in flight finish when stopped', async () => {
    const proxy = await startTestProxy(standaloneEnv(hostile.url, shadow.url, { SVC_APP_PROXY_SERVER: 'raw' }))
    const pending = fetch(`${proxy.url}/slow`)
    await Bun.sleep(100)
    const stopped = proxy.stop()
    const res = await pending
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('slow')
    await stopped
  })

  test('with an https: live, says so at startup and serves with Bun.serve', async () => {
    const proxy = await startTestProxy(standaloneEnv('https://127.0.0.1:1', shadow.url, { SVC_APP_PROXY_SERVER: 'raw', SVC_APP_LIVE_TIMEOUT: '1s' }))
    try {
      const record = proxy.records().find((r) => r.msg.startsWith('SVC_APP_PROXY_SERVER=raw serves an http: live only'))
      // Information, not a warning: the raw server is the default, and an https: live is a setting as good as any.
      expect(record?.level).toBe('INFO')
      expect(proxy.records().find((r) => r.msg === 'proxy listening')?.server).toBe('bun')
      const res = await fetch(`${proxy.url}/x`)
      expect(res.status).toBe(502)
    } finally {
      await proxy.stop()
    }
  })
})
