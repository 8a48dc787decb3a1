import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { once } from 'node:events'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { GZIP_BYTES, JSON_TEXT, refusedUrl, startResettingServer, startUpstreamPair, type TestUpstream } from '../../support/upstreams.ts'
import { standaloneEnv, startTestProxy, type ProxyUnderTest } from './proxy-harness.ts'
import { readTimed } from '../../support/timed-read.ts'

let live: TestUpstream
let shadow: TestUpstream
let stopPair: () => Promise<void>
let proxy: ProxyUnderTest

beforeAll(async () => {
  const pair = await startUpstreamPair()
  live = pair.live
  shadow = pair.shadow
  stopPair = pair.stop
  proxy = await startTestProxy(
    standaloneEnv(live.url, shadow.url, {
      SVC_APP_LIVE_TIMEOUT: '1s',
      SVC_APP_SHADOW_TIMEOUT: '2s',
      SVC_APP_MAX_BODY_SIZE: '65536',
      SVC_APP_SHADOW_RULES: 'allow POST:/echo',
    }),
  )
})

afterEach(async () => {
  await proxy.settled()
  live.reset()
  shadow.reset()
})

afterAll(async () => {
  await proxy.stop()
  await stopPair()
})

/**
 * Live and shadow as raw TCP servers on 127.0.0.1, each answering every
 * chunk a client sends with `answer` (bytes fetch-based servers cannot send).
 */
async function rawUpstreamPair(answer: (socket: Socket) => void) {
  const servers = [0, 1].map(() => createServer((socket) => socket.on('data', () => answer(socket))).listen(0, '127.0.0.1'))
  await Promise.all(servers.map((server) => once(server, 'listening')))
  const [liveUrl, shadowUrl] = servers.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`) as [string, string]
  return {
    liveUrl,
    shadowUrl,
    close() {
      for (const server of servers) server.close()
    },
  }
}

describe('the client gets live’s response untouched', () => {
  test('keeps a gzip body compressed, byte for byte, with its Content-Encoding', async () => {
    const response = await fetch(`${proxy.url}/gzip`, { decompress: false } as RequestInit)
    expect(response.headers.get('content-encoding')).toBe('gzip')
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(GZIP_BYTES)
  })

  test('passes live’s status and body through, a 500 included', async () => {
    const response = await fetch(`${proxy.url}/status/500`)
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ status: 500 })
  })

  test('returns the 2 KB JSON document exactly', async () => {
    const response = await fetch(`${proxy.url}/json`)
    expect(await response.text()).toBe(JSON_TEXT)
    expect(response.headers.get('content-type')).toBe('application/json')
  })

  test('streams a chunked body: the first chunk arrives before live has finished', async () => {
    const started = performance.now()
    const { text, firstAt, endAt } = await readTimed(await fetch(`${proxy.url}/chunked?chunks=4&delay=300`), started)
    expect(text).toBe('chunk 0\nchunk 1\nchunk 2\nchunk 3\n')
    // Live takes ~1.2 s in all; the first chunk must not wait for the rest.
    expect(endAt - firstAt).toBeGreaterThan(600)
  })

  test('streams a small body of announced length that trickles in, and still compares it', async () => {
    // Content-Length 10: "hello" with the headers, "world" 400 ms later; the same on both sides.
    const trickling = await rawUpstreamPair((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nhello')
      setTimeout(() => socket.write('world'), 400)
    })
    const own = await startTestProxy(standaloneEnv(trickling.liveUrl, trickling.shadowUrl))
    try {
      const started = performance.now()
      const { text, firstChunk, firstAt } = await readTimed(await fetch(`${own.url}/`), started)
      expect(text).toBe('helloworld')
      expect(firstChunk).toBe('hello')
      expect(firstAt).toBeLessThan(300)
      const counts = await own.settled()
      expect(counts.compared).toBe(1)
      expect(await own.metric('svc_responses_compared_total', { result: 'match' })).toBe(1)
    } finally {
      await own.stop()
      trickling.close()
    }
  })

  test('forwards a body larger than the bound in full (it is only not compared)', async () => {
    const response = await fetch(`${proxy.url}/large?bytes=3000000`)
    expect((await response.arrayBuffer()).byteLength).toBe(3_000_000)
    const counts = await proxy.settled()
    expect(counts.skipped.body_too_large).toBeGreaterThanOrEqual(1)
  })

  test('answers HEAD with live’s headers and no body', async () => {
    const response = await fetch(`${proxy.url}/json`, { method: 'HEAD' })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('')
  })

  test('does not follow redirects: the client gets live’s 302', async () => {
    live.route('/moved', () => new Response(null, { status: 302, headers: { location: '/json' } }))
    const response = await fetch(`${proxy.url}/moved`, { redirect: 'manual' })
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/json')
  })
})

describe('headers', () => {
  test('drops hop-by-hop request headers and those named in Connection (RFC 9110 §7.6.1)', async () => {
    await fetch(`${proxy.url}/echo`, {
      headers: { connection: 'x-hop', 'x-hop': '1', 'keep-alive': 'timeout=5', te: 'trailers', 'x-end': 'kept' },
    })
    const [received] = await live.waitForRequests(1)
    expect(received!.headers.get('x-hop')).toBeNull()
    expect(received!.headers.get('keep-alive')).toBeNull()
    expect(received!.headers.get('te')).toBeNull()
    expect(received!.headers.get('x-end')).toBe('kept')
  })

  test('drops hop-by-hop response headers and keeps the end-to-end ones', async () => {
    const response = await fetch(`${proxy.url}/hop-by-hop`)
    expect(response.headers.get('x-private')).toBeNull()
    expect(response.headers.get('keep-alive')).toBeNull()
    expect(response.headers.get('x-end-to-end')).toBe('kept')
  })

  test('a Connection option that is no field name harms nothing, either way', async () => {
    // Live names `bad token` in Connection on every response; with two
    // connections per host, a slot not given back would soon turn into 504s.
    const raws = await rawUpstreamPair((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nConnection: keep-alive, bad token\r\nX-End: kept\r\nContent-Length: 2\r\n\r\nok')
    })
    const own = await startTestProxy(
      standaloneEnv(raws.liveUrl, raws.shadowUrl, { SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST: '2', SVC_APP_LIVE_TIMEOUT: '1s' }),
    )
    try {
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${own.url}/r${i}`, { headers: { connection: 'keep-alive, bad token' } })
        expect(response.status).toBe(200)
        expect(response.headers.get('x-end')).toBe('kept')
        expect(await response.text()).toBe('ok')
      }
    } finally {
      await own.stop()
      raws.close()
    }
  })

  test('adds X-Forwarded-For/-Host/-Proto on both, X-Svc-Mode on the shadow only', async () => {
    await fetch(`${proxy.url}/json`, { headers: { 'x-forwarded-for': '203.0.113.9' } })
    const [toLive] = await live.waitForRequests(1)
    const [toShadow] = await shadow.waitForRequests(1)
    for (const request of [toLive!, toShadow!]) {
      expect(request.headers.get('x-forwarded-for')).toBe('203.0.113.9, 127.0.0.1')
      expect(request.headers.get('x-forwarded-host')).toBe(new URL(proxy.url).host)
      expect(request.headers.get('x-forwarded-proto')).toBe('http')
    }
    expect(toLive!.headers.get('x-svc-mode')).toBeNull()
    expect(toShadow!.headers.get('x-svc-mode')).toBe('shadow')
    // A GET stays a GET without a body on both sides.
    for (const request of [toLive!, toShadow!]) {
      expect(request.headers.get('content-length')).toBeNull()
      expect(request.headers.get('transfer-encoding')).toBeNull()
    }
  })

  test('replaces X-Forwarded-Proto and -Host from a peer that is not a trusted proxy', async () => {
    await fetch(`${proxy.url}/json`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example' } })
    const [received] = await live.waitForRequests(1)
    expect(received!.headers.get('x-forwarded-proto')).toBe('http')
    expect(received!.headers.get('x-forwarded-host')).toBe(new URL(proxy.url).host)
  })

  test('keeps X-Forwarded-Proto and -Host set by a proxy in front listed in SVC_APP_TRUSTED_PROXIES', async () => {
    const own = await startTestProxy(standaloneEnv(live.url, shadow.url, { SVC_APP_TRUSTED_PROXIES: '127.0.0.1, ::1' }))
    try {
      await fetch(`${own.url}/json`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example' } })
      const [received] = await live.waitForRequests(1)
      expect(received!.headers.get('x-forwarded-proto')).toBe('https')
      expect(received!.headers.get('x-forwarded-host')).toBe('shop.example')
      await own.settled()
    } finally {
      await own.stop()
    }
  })
})

describe('live and shadow at the same time', () => {
  test('the shadow request leaves before live has answered', async () => {
    live.route('/together', async () => {
      await Bun.sleep(300)
      return new Response('live')
    })
    await fetch(`${proxy.url}/together`)
    const [toLive] = await live.waitForRequests(1)
    const [toShadow] = await shadow.waitForRequests(1)
    expect(Math.abs(toShadow!.receivedAt - toLive!.receivedAt)).toBeLessThan(200)
  })

  test('a slow shadow does not delay the client', async () => {
    shadow.route('/json', async () => {
      await Bun.sleep(1500)
      return new Response(JSON_TEXT)
    })
    const started = performance.now()
    const response = await fetch(`${proxy.url}/json`)
    await response.text()
    expect(performance.now() - started).toBeLessThan(700)
  })

  test('sends an allowed POST body to both, byte for byte', async () => {
    const body = JSON.stringify({ query: 'shoes', page: 2 })
    const response = await fetch(`${proxy.url}/echo`, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
    expect((await response.json()).body_length).toBe(body.length)
    const [toShadow] = await shadow.waitForRequests(1)
    expect(new TextDecoder().decode(toShadow!.body)).toBe(body)
  })

  test('streams a chunked upload above the bound to live only', async () => {
    const chunk = new Uint8Array(32 * 1024).fill(98)
    let sent = 0
    const upload = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 8) return controller.close()
        sent++
        controller.enqueue(chunk)
      },
    })
    const response = await fetch(`${proxy.url}/echo`, { method: 'POST', body: upload, duplex: 'half' } as RequestInit)
    expect((await response.json()).body_length).toBe(8 * chunk.byteLength)
    const counts = await proxy.settled()
    expect(counts.skipped.body_too_large).toBeGreaterThanOrEqual(1)
    expect(shadow.requests).toHaveLength(0)
  })

  test('does not shadow a POST that announces a body above the bound', async () => {
    const body = new Uint8Array(100_000).fill(99)
    const response = await fetch(`${proxy.url}/echo`, { method: 'POST', body })
    expect((await response.json()).body_length).toBe(100_000)
    await proxy.settled()
    expect(shadow.requests).toHaveLength(0)
  })
})

describe('when live gives no response', () => {
  test('answers 504 Problem when live does not answer within SVC_APP_LIVE_TIMEOUT', async () => {
    const started = performance.now()
    const response = await fetch(`${proxy.url}/slow?ms=3000`)
    expect(response.status).toBe(504)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    expect(await response.json()).toMatchObject({ type: '/errors/gateway-timeout', status: 504 })
    expect(performance.now() - started).toBeLessThan(2500)
  })
})

describe('live down', () => {
  test('answers 502 Problem when live refuses the connection', async () => {
    const refused = await startTestProxy(standaloneEnv(refusedUrl(), shadow.url))
    try {
      const response = await fetch(`${refused.url}/json`)
      expect(response.status).toBe(502)
      expect(await response.json()).toMatchObject({ type: '/errors/bad-gateway', status: 502, title: 'Bad gateway' })
    } finally {
      await refused.stop()
    }
  })

  test('answers 502 Problem when live resets the connection', async () => {
    const resetting = startResettingServer()
    const reset = await startTestProxy(standaloneEnv(resetting.url, shadow.url))
    try {
      const response = await fetch(`${reset.url}/json`)
      expect(response.status).toBe(502)
      expect((await response.json()).detail).toContain('reset')
    } finally {
      await reset.stop()
      resetting.stop()
    }
  })
})

describe('the outbound HTTP client', () => {
  test('SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST bounds live connections, which are reused (no churn)', async () => {
    const limited = await startTestProxy(
      standaloneEnv(live.url, shadow.url, {
        SVC_APP_SAMPLING_RATE: '0',
        SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST: '2',
        SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS_PER_HOST: '2',
      }),
    )
    try {
      let concurrent = 0
      let most = 0
      live.route('/counted', async () => {
        most = Math.max(most, ++concurrent)
        await Bun.sleep(30)
        concurrent--
        return new Response('ok')
      })
      // 6 clients at a time, 30 requests in all.
      for (let batch = 0; batch < 5; batch++) {
        const responses = await Promise.all(Array.from({ length: 6 }, () => fetch(`${limited.url}/counted`)))
        for (const response of responses) expect(await response.text()).toBe('ok')
      }
      expect(most).toBe(2)
      const ports = new Set(live.requests.filter((r) => r.target === '/counted').map((r) => r.remotePort))
      expect(ports.size).toBeLessThanOrEqual(2)
    } finally {
      await limited.stop()
    }
  })
})
