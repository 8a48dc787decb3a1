/**
 * The shadow's HTTP/1.1 client against raw TCP servers on 127.0.0.1 that
 * answer as scripted, so that connections, closes and bytes are seen
 * exactly: what it sends (the same as fetch), keep-alive and the four
 * SVC_APP_HTTP_CLIENT_* limits, stale connections, and failures as
 * UpstreamErrors.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { gzipSync } from 'node:zlib'
import { createUpstreamPool, DEFAULT_HTTP_CLIENT as DEFAULTS, type UpstreamPool } from '../../../../src/proxy/index.ts'
import type { HttpClientSettings } from '../../../../src/proxy/policy/shadow-settings.ts'
import { AbortFlag } from '../../../../src/async/abort-flag.ts'
import { SemaphoreAbortedError } from '../../../../src/proxy/policy/semaphore.ts'
import { HeadTimeoutReason, TimeoutReason, UpstreamError } from '../../../../src/proxy/upstream/upstream-error.ts'
import { Connection } from '../../../../src/proxy/upstream/http1-connection.ts'
import { unacceptingListener } from '../../../support/unaccepting-listener.ts'
import { refusedUrl } from '../../../support/upstreams.ts'

interface RawConnection {
  readonly socket: Bun.Socket<RawConnection>
  requests: string[]
  closed: boolean
}

/** What a scripted server does with the n-th request (from 0) of a connection. */
type Answer = (request: string, connection: RawConnection, index: number) => string | Buffer | 'close' | 'ignore'

interface RawServer {
  readonly url: string
  readonly connections: RawConnection[]
  readonly open: number
  stop(): void
}

function rawServer(answer: Answer): RawServer {
  const connections: RawConnection[] = []
  const listener = Bun.listen<RawConnection>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        const connection: RawConnection = { socket, requests: [], closed: false }
        socket.data = connection
        connections.push(connection)
      },
      data(socket, data) {
        const connection = socket.data
        // Every request here fits one read: a head, and a small body with it.
        const request = data.toString('latin1')
        connection.requests.push(request)
        const reply = answer(request, connection, connection.requests.length - 1)
        if (reply === 'close') socket.end()
        else if (reply !== 'ignore') socket.write(reply)
      },
      close(socket) {
        socket.data.closed = true
      },
    },
  })
  return {
    url: `http://127.0.0.1:${listener.port}`,
    connections,
    get open() {
      return connections.filter((c) => !c.closed).length
    },
    stop: () => listener.stop(true),
  }
}

const ok = (body: string | Buffer, extra = '') =>
  Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n`), Buffer.from(body)])

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('condition not met in time')
    await Bun.sleep(10)
  }
}

/** Our client whatever the default of SVC_APP_SHADOW_CLIENT. */
const DEFAULT_HTTP_CLIENT: HttpClientSettings = { ...DEFAULTS, shadowClient: 'http1' }

const pools: UpstreamPool[] = []
const servers: RawServer[] = []
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close()
  for (const server of servers.splice(0)) server.stop()
})

function setup(answer: Answer, settings: Partial<HttpClientSettings> = {}) {
  const server = rawServer(answer)
  servers.push(server)
  const pool = createUpstreamPool({ settings: { ...DEFAULT_HTTP_CLIENT, ...settings } })
  pools.push(pool)
  return { server, pool, client: pool.shadowClient(server.url) }
}

const get = (pathAndQuery = '/', signal = new AbortController().signal) => ({
  method: 'GET',
  pathAndQuery,
  headers: new Headers({ 'x-svc-mode': 'shadow' }),
  body: null,
  signal,
})

describe('what it sends', () => {
  /** Header lines of a request as a sorted list of lower-cased `name: value`, and its request line and body. */
  function parts(request: string) {
    const [head, body] = request.split('\r\n\r\n') as [string, string]
    const [line, ...fields] = head.split('\r\n')
    return { line, fields: fields.map((f) => f.replace(/^([^:]+):/, (n) => n.toLowerCase())).sort(), body }
  }

  const json = { 'x-request-id': 'r-1', 'content-type': 'application/json', 'x-svc-mode': 'shadow' }
  test.each([
    ['GET with a query', 'GET', '/a/b?x=1&y=%20', null, json, ''],
    ['POST with a body', 'POST', '/echo', new TextEncoder().encode('{"a":1}'), json, ''],
    ['DELETE without a body', 'DELETE', '/items/1', null, json, ''],
    ['TRACE and OPTIONS without a body', 'TRACE', '/t', null, json, ''],
    ['OPTIONS without a body', 'OPTIONS', '/t', null, json, ''],
    ['a target with dot segments and characters to encode', 'GET', "/a/./b/../c d/é/%2e%2e/f?q=a b&r='s'", null, json, ''],
    ['a target starting with two slashes', 'GET', '//x//y?z=//w', null, json, ''],
    ['a field named like an Object property', 'GET', '/', null, { constructor: 'c', ['__proto__']: 'p', 'x-svc-mode': 'shadow' }, ''],
    ['credentials in the upstream URL', 'GET', '/', null, json, 'u%20x:p%40ss@'],
    ['credentials in the URL and an Authorization of the request', 'GET', '/', null, { ...json, authorization: 'Bearer t' }, 'u:p@'],
  ])('%s: the same request line, fields and body as fetch sends', async (_, method, pathAndQuery, body, fields, userinfo) => {
    const server = rawServer(() => ok('{}'))
    servers.push(server)
    const pool = createUpstreamPool({ settings: DEFAULT_HTTP_CLIENT })
    pools.push(pool)
    const base = server.url.replace('http://', `http://${userinfo}`)
    const client = pool.shadowClient(base)
    const headers = new Headers()
    for (const [name, value] of Object.entries(fields)) headers.set(name, value)
    const signal = new AbortController().signal
    await client.send({ method, pathAndQuery, headers, body, signal }, 0)
    const viaFetch = await pool.client('live', base).send({ method, pathAndQuery, headers, body, signal })
    await viaFetch.response.arrayBuffer()
    viaFetch.done()
    const [ours, fetched] = server.connections.flatMap((c) => c.requests).map(parts)
    expect(ours).toEqual(fetched!)
    expect(ours!.fields.some((f) => f.startsWith('host: 127.0.0.1:'))).toBe(true)
  })

  test('X-Svc-Mode: shadow is set once, in place of one the client sent', async () => {
    const { server, client } = setup(() => ok('{}'))
    await client.send({ ...get(), headers: new Headers({ 'X-Svc-Mode': 'live', accept: 'text/plain' }) }, 0)
    const fields = server.connections[0]!.requests[0]!.split('\r\n').map((l) => l.toLowerCase())
    expect(fields.filter((f) => f.startsWith('x-svc-mode:'))).toEqual(['x-svc-mode: shadow'])
    expect(fields.filter((f) => f.startsWith('accept:'))).toEqual(['accept: text/plain'])
  })

  test('a base URL with a path prefix prefixes every target', async () => {
    const server = rawServer(() => ok('{}'))
    servers.push(server)
    const pool = createUpstreamPool({ settings: DEFAULT_HTTP_CLIENT })
    pools.push(pool)
    await pool.shadowClient(`${server.url}/v2/`).send(get('/items?x=1'), 0)
    expect(server.connections[0]!.requests[0]!.split('\r\n')[0]).toBe('GET /v2/items?x=1 HTTP/1.1')
  })
})

describe('what it reads', () => {
  test('status, header map (canonical names, repeated fields joined, Set-Cookie apart) and the exact body bytes', async () => {
    const gzip = gzipSync('{"compressed":true}')
    const { client } = setup(() =>
      ok(gzip, 'Content-Encoding: gzip\r\nVary: a\r\nVary: b\r\nSet-Cookie: x=1\r\nSet-Cookie: y=2\r\n'),
    )
    const result = await client.send(get(), 0)
    expect(result.kind).toBe('complete')
    if (result.kind !== 'complete') return
    expect(result.status).toBe(200)
    expect(Buffer.from(result.body).equals(gzip)).toBe(true)
    expect(result.headers).toEqual({
      'Content-Encoding': ['gzip'],
      'Content-Length': [String(gzip.length)],
      Vary: ['a, b'],
      'Set-Cookie': ['x=1', 'y=2'],
    })
  })

  test('a chunked body arrives de-chunked', async () => {
    const { client } = setup(() => 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n')
    const result = await client.send(get(), 0)
    expect(result.kind === 'complete' && new TextDecoder().decode(result.body)).toBe('abcde')
  })

  test('a body above the bound is a too_large error, and its connection is closed rather than read to the end', async () => {
    const { server, client } = setup(() => ok('x'.repeat(100)))
    expect(await client.send(get(), 10).then(() => undefined, (e: unknown) => e)).toMatchObject({
      kind: 'too_large',
      message: 'shadow: response too large (body over 10 bytes)',
    })
    await until(() => server.open === 0)
  })
})

describe('keep-alive and the SVC_APP_HTTP_CLIENT_* limits', () => {
  test('sequential requests share one connection', async () => {
    const { server, client } = setup(() => ok('{}'))
    for (let i = 0; i < 5; i++) expect((await client.send(get(), 0)).kind).toBe('complete')
    expect(server.connections).toHaveLength(1)
    expect(server.connections[0]!.requests).toHaveLength(5)
  })

  test('MAX_CONNS_PER_HOST bounds the exchanges in flight, and fetch to the same origin waits for the same slots', async () => {
    const answers: (() => void)[] = []
    const { server, pool, client } = setup(
      (_, connection) => {
        answers.push(() => connection.socket.write(ok('{}')))
        return 'ignore'
      },
      { maxConnsPerHost: 2 },
    )
    const pending = Array.from({ length: 4 }, () => client.send(get(), 0))
    await until(() => answers.length === 2)
    let fetched = false
    const viaFetch = pool
      .client('live', server.url)
      .send(get())
      .then((exchange) => {
        fetched = true
        return exchange
      })
    await Bun.sleep(100)
    // Two exchanges hold both slots: nothing else reached the server, fetch's request included.
    expect(server.connections.flatMap((c) => c.requests)).toHaveLength(2)
    expect(fetched).toBe(false)
    for (let answered = 0; answered < 5; answered++) {
      await until(() => answers.length > answered)
      answers[answered]!()
      await Bun.sleep(20)
      expect(server.connections.flatMap((c) => c.requests).length - (answered + 1)).toBeLessThanOrEqual(2)
    }
    expect((await Promise.all(pending)).every((r) => r.kind === 'complete')).toBe(true)
    const exchange = await viaFetch
    await exchange.response.arrayBuffer()
    exchange.done()
  })

  test('MAX_IDLE_CONNS_PER_HOST: connections beyond it are closed when their exchange ends', async () => {
    const answers: (() => void)[] = []
    const { server, client } = setup(
      (_, connection) => {
        answers.push(() => connection.socket.write(ok('{}')))
        return 'ignore'
      },
      { maxConnsPerHost: 0, maxIdleConnsPerHost: 2 },
    )
    const pending = Array.from({ length: 5 }, () => client.send(get(), 0))
    await until(() => answers.length === 5)
    for (const answer of answers) answer()
    await Promise.all(pending)
    await until(() => server.open === 2)
  })

  /** Two upstreams and a pool that keeps one idle connection across them (MAX_IDLE_CONNS=1). */
  function twoHostsOneIdleConnection() {
    const a = rawServer(() => ok('{}'))
    const b = rawServer(() => ok('{}'))
    servers.push(a, b)
    const pool = createUpstreamPool({ settings: { ...DEFAULT_HTTP_CLIENT, maxIdleConns: 1 } })
    pools.push(pool)
    return { a, b, pool }
  }

  test('MAX_IDLE_CONNS bounds idle connections across hosts', async () => {
    const { a, b, pool } = twoHostsOneIdleConnection()
    await pool.shadowClient(a.url).send(get(), 0)
    await pool.shadowClient(b.url).send(get(), 0)
    await until(() => a.open + b.open === 1)
    expect(a.open).toBe(1)
  })

  test('IDLE_CONN_TIMEOUT closes an idle connection within about a second of it', async () => {
    const { server, client } = setup(() => ok('{}'), { idleConnTimeoutMs: 200 })
    await client.send(get(), 0)
    expect(server.open).toBe(1)
    await until(() => server.open === 0, 2500)
  })

  test('a connection the server closes while idle is dropped, and the next request opens a new one', async () => {
    const { server, client } = setup(() => ok('{}', 'Connection: keep-alive\r\n'))
    await client.send(get(), 0)
    server.connections[0]!.socket.end()
    await until(() => server.open === 0)
    expect((await client.send(get(), 0)).kind).toBe('complete')
    expect(server.connections).toHaveLength(2)
  })

  test('a connection the server closes while idle no longer counts against MAX_IDLE_CONNS', async () => {
    const { a, b, pool } = twoHostsOneIdleConnection()
    await pool.shadowClient(a.url).send(get(), 0)
    a.connections[0]!.socket.end()
    await until(() => a.open === 0)
    await Bun.sleep(20)
    // The budget of one idle connection is free again: b's is kept.
    await pool.shadowClient(b.url).send(get(), 0)
    await Bun.sleep(50)
    expect(b.open).toBe(1)
    await pool.shadowClient(b.url).send(get(), 0)
    expect(b.connections).toHaveLength(1)
  })
})

describe('stale connections and failures', () => {
  /** Answers the first request of each connection; closes it without an answer on the second (a server's idle timeout racing the reuse). */
  const staleOnSecond: Answer = (_, __, index) => (index === 0 ? ok('{}') : 'close')

  test('a replayable request on a connection closed before its answer is sent once more on a new one', async () => {
    const { server, client } = setup(staleOnSecond)
    await client.send(get(), 0)
    expect((await client.send(get(), 0)).kind).toBe('complete')
    expect(server.connections).toHaveLength(2)
  })

  test('the retry goes to a new connection even when another idle one is there', async () => {
    const answers: (() => void)[] = []
    let stale = false
    const { server, client } = setup(
      (_, connection, index) => {
        if (stale && index > 0) return 'close'
        answers.push(() => connection.socket.write(ok('{}')))
        return 'ignore'
      },
      { maxConnsPerHost: 0 },
    )
    const first = [client.send(get(), 0), client.send(get(), 0)]
    await until(() => answers.length === 2)
    for (const answer of answers.splice(0)) answer()
    await Promise.all(first)
    stale = true
    const retried = client.send(get(), 0)
    await until(() => answers.length === 1)
    answers[0]!()
    expect((await retried).kind).toBe('complete')
    // Two idle connections, one tried and found stale, then a third opened: not the other idle one.
    expect(server.connections).toHaveLength(3)
  })

  test('a response that comes before the whole request went out leaves its connection unused afterwards', async () => {
    const listener = Bun.listen<{ answered: boolean }>({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        open(socket) {
          socket.data = { answered: false }
        },
        data(socket) {
          // Answers the head at once and never reads the rest of the body.
          if (socket.data.answered) return
          socket.data.answered = true
          socket.write('HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n')
        },
      },
    })
    const pool = createUpstreamPool({ settings: DEFAULT_HTTP_CLIENT })
    pools.push(pool)
    try {
      const client = pool.shadowClient(`http://127.0.0.1:${listener.port}`)
      const big = { ...get(), method: 'PUT', body: new Uint8Array(32 * 1024 * 1024) }
      const result = await client.send(big, 0)
      expect(result.kind === 'complete' && result.status).toBe(413)
      const second = await client.send({ ...get(), method: 'PUT', body: new Uint8Array(8) }, 0)
      // Reusing the first connection would have put this request inside the first one's body.
      expect(second.kind === 'complete' && second.status).toBe(413)
    } finally {
      listener.stop(true)
    }
  })

  test('a POST is not replayed: the stale connection is a reset', async () => {
    const { client } = setup(staleOnSecond)
    await client.send(get(), 0)
    const post = { ...get(), method: 'POST', body: new Uint8Array([1]) }
    const error = await client.send(post, 0).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(UpstreamError)
    expect((error as UpstreamError).kind).toBe('reset')
  })

  test('a refused connection is `refused`', async () => {
    const pool = createUpstreamPool({ settings: DEFAULT_HTTP_CLIENT })
    pools.push(pool)
    const error = await pool
      .shadowClient(refusedUrl())
      .send(get(), 0)
      .then(() => undefined, (e: unknown) => e)
    expect(error).toMatchObject({ kind: 'refused', message: 'shadow: connection refused' })
  })

  test('a connection reset mid-body is `reset`', async () => {
    const { client } = setup((_, connection) => {
      connection.socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial')
      setTimeout(() => connection.socket.terminate(), 20)
      return 'ignore'
    })
    expect(await client.send(get(), 0).then(() => undefined, (e: unknown) => e)).toMatchObject({ kind: 'reset' })
  })

  test('a timeout aborts the exchange, closes its connection and frees its slot', async () => {
    let answering = false
    const { server, client } = setup(() => (answering ? ok('{}') : 'ignore'), { maxConnsPerHost: 1 })
    const controller = new AbortController()
    const waiting = client.send(get('/', controller.signal), 0).then(() => undefined, (e: unknown) => e)
    await until(() => server.connections.length === 1 && server.connections[0]!.requests.length === 1)
    controller.abort(new TimeoutReason(250))
    expect(await waiting).toMatchObject({ kind: 'timeout', message: 'shadow: timed out after 250ms' })
    await until(() => server.open === 0)
    answering = true
    expect((await client.send(get(), 0)).kind).toBe('complete')
  })

  test('a socket that throws when written on a kept-alive connection ends the exchange once: no retry elsewhere, and its slot is free again', async () => {
    const { server, client } = setup(() => ok('{}'), { maxConnsPerHost: 1 })
    await client.send(get(), 0)
    // What only a bug could do: the write throws after the exchange is set on the connection.
    const connection = Connection.prototype as unknown as { write(bytes: Buffer): void }
    const write = connection.write
    connection.write = () => {
      throw new Error('the socket threw')
    }
    let failure: unknown
    try {
      failure = await client.send(get(), 0).then(() => undefined, (e: unknown) => e)
    } finally {
      connection.write = write
    }
    expect(failure).toBeInstanceOf(UpstreamError)
    expect((failure as UpstreamError).message).toContain('the socket threw')
    await Bun.sleep(100)
    // Without it, the close read as a stale connection: a retry on a second connection, past the slot.
    expect(server.connections).toHaveLength(1)
    expect(server.connections[0]!.requests).toHaveLength(1)
    // One connection per host: the next request goes out at once only if the slot came back.
    expect((await client.send(get(), 0)).kind).toBe('complete')
    expect(server.connections).toHaveLength(2)
  })

  test('a response that is not HTTP/1.1 is a bad response, and the connection is not reused', async () => {
    let answered = 0
    const { server, client } = setup(() => (answered++ === 0 ? 'SSH-2.0-OpenSSH\r\n\r\n' : ok('{}')))
    expect(await client.send(get(), 0).then(() => undefined, (e: unknown) => e)).toMatchObject({
      kind: 'bad_response',
      message: 'shadow: bad response: bad status line "SSH-2.0-OpenSSH"',
    })
    expect((await client.send(get(), 0)).kind).toBe('complete')
    expect(server.connections).toHaveLength(2)
  })
})

describe("the server's Keep-Alive: timeout=", () => {
  /**
   * Answers the first request of a connection with `Keep-Alive`; closes
   * the connection without an answer on a later one, as a server does
   * whose idle timer fired as the request came in.
   */
  const announcing = (keepAlive: string): Answer => (_, __, index) => (index === 0 ? ok('{}', `Keep-Alive: ${keepAlive}\r\n`) : 'close')
  const post = () => ({ ...get(), method: 'POST', body: new Uint8Array([1]) })

  test('a connection the server keeps idle for at most a second is not kept: a POST after it goes out on a new one', async () => {
    const { server, client } = setup(announcing('timeout=1'))
    await client.send(get(), 0)
    await until(() => server.open === 0)
    expect((await client.send(post(), 0)).kind).toBe('complete')
    expect(server.connections).toHaveLength(2)
  })

  test('a connection idle for longer than the server announced, less a second, is not reused', async () => {
    const { server, client } = setup(announcing('timeout=2, max=100'))
    await client.send(get(), 0)
    await Bun.sleep(1100)
    expect((await client.send(post(), 0)).kind).toBe('complete')
    expect(server.connections).toHaveLength(2)
  })

  test('within what the server announced, the connection is reused', async () => {
    const { server, client } = setup(() => ok('{}', 'Keep-Alive: timeout=60\r\n'))
    await client.send(get(), 0)
    await client.send(post(), 0)
    expect(server.connections).toHaveLength(1)
  })
})

describe('the response head timeout', () => {
  test("a shadow that takes the request and never answers times out at the head's own bound, and its connection is closed", async () => {
    const server = rawServer(() => 'ignore')
    servers.push(server)
    const pool = createUpstreamPool({ settings: DEFAULT_HTTP_CLIENT })
    pools.push(pool)
    const error = await pool.shadowClient(server.url, 150).send(get(), 0).then(() => undefined, (e: unknown) => e)
    expect(error).toMatchObject({ kind: 'timeout', message: 'shadow: timed out after 150ms waiting for the response head' })
    await until(() => server.open === 0)
  })

  const late = { kind: 'timeout', message: 'shadow: timed out after 150ms waiting for the response head' }

  /** A request's signal that counts the listeners added to it and not removed: none once an exchange is over. */
  class CountedFlag extends AbortFlag {
    listening = 0
    override addEventListener(type: 'abort', listener: () => void): void {
      this.listening++
      super.addEventListener(type, listener)
    }
    override removeEventListener(type: 'abort', listener: () => void): void {
      this.listening--
      super.removeEventListener(type, listener)
    }
  }

  const failure = (sending: Promise<unknown>) => sending.then(() => undefined, (e: unknown) => e as UpstreamError)

  test('on a kept-alive connection, a head that is late ends the exchange and closes the connection, and the slot is free again', async () => {
    let answering = true
    const server = rawServer(() => (answering ? ok('{}') : 'ignore'))
    servers.push(server)
    const pool = createUpstreamPool({ settings: { ...DEFAULT_HTTP_CLIENT, maxConnsPerHost: 1 } })
    pools.push(pool)
    const client = pool.shadowClient(server.url, 150)
    expect((await client.send(get(), 0)).kind).toBe('complete')
    answering = false
    const signal = new CountedFlag()
    expect(await failure(client.send({ ...get(), signal }, 0))).toMatchObject(late)
    expect(signal.listening).toBe(0)
    // The late exchange went out on the connection kept from the first.
    expect(server.connections).toHaveLength(1)
    await until(() => server.open === 0)
    answering = true
    expect((await client.send(get(), 0)).kind).toBe('complete')
  })

  test('a head deadline that passes while the exchange waits for a connection slot ends the wait, and takes no slot', async () => {
    const server = rawServer((request) => (request.includes('x-hold') ? 'ignore' : ok('{}')))
    servers.push(server)
    const pool = createUpstreamPool({ settings: { ...DEFAULT_HTTP_CLIENT, maxConnsPerHost: 1 } })
    pools.push(pool)
    const received = () => server.connections.flatMap((c) => c.requests).length
    // The host's one slot, held by a request of fetch (no head timeout) that is never answered.
    const holder = new AbortController()
    const held = failure(pool.client('live', server.url).send({ ...get('/', holder.signal), headers: new Headers({ 'x-hold': '1' }) }))
    await until(() => received() === 1)
    const client = pool.shadowClient(server.url, 150)
    const signal = new CountedFlag()
    const error = await failure(client.send({ ...get(), signal }, 0))
    expect(error).toMatchObject(late)
    // Given up in line for the slot (the semaphore's error), not on a connection.
    expect((error as UpstreamError).cause).toBeInstanceOf(SemaphoreAbortedError)
    expect(signal.listening).toBe(0)
    // The slot is still the holder's: the next exchange waits in line too, and nothing reaches the server.
    const next = await failure(client.send(get(), 0))
    expect((next as UpstreamError).cause).toBeInstanceOf(SemaphoreAbortedError)
    expect(received()).toBe(1)
    holder.abort()
    await held
    expect((await client.send(get(), 0)).kind).toBe('complete')
  })

  test('a head deadline that passes during the connect ends it, and gives the slot back', async () => {
    const listener = await unacceptingListener()
    try {
      const pool = createUpstreamPool({ settings: { ...DEFAULT_HTTP_CLIENT, maxConnsPerHost: 1 } })
      pools.push(pool)
      const client = pool.shadowClient(`http://127.0.0.1:${listener.port}`, 150)
      for (let attempt = 0; attempt < 2; attempt++) {
        const signal = new CountedFlag()
        const error = await failure(client.send({ ...get(), signal }, 0))
        expect(error).toMatchObject(late)
        // Ended in the connect (its reason itself), so not in line for a slot the first kept.
        expect((error as UpstreamError).cause).toBeInstanceOf(HeadTimeoutReason)
        expect(signal.listening).toBe(0)
      }
    } finally {
      listener.close()
    }
  })

  test('a body slower than the head timeout is read to its end: only the head is bounded', async () => {
    const server = rawServer((_, connection) => {
      connection.socket.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab')
      setTimeout(() => connection.socket.write('cd'), 300)
      return 'ignore'
    })
    servers.push(server)
    const pool = createUpstreamPool({ settings: DEFAULT_HTTP_CLIENT })
    pools.push(pool)
    const response = await pool.shadowClient(server.url, 100).send(get(), 0)
    expect(response.kind === 'complete' && Buffer.from(response.body).toString()).toBe('abcd')
  })
})
