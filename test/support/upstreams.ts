/**
 * Real live and shadow servers for the proxy's and the module's tests, on
 * 127.0.0.1, each recording what it received. The built-in routes give the
 * same answer on both sides unless a test overrides one with `route()`:
 *
 * | route                          | answer                                                  |
 * |--------------------------------|---------------------------------------------------------|
 * | `/json`                        | a 2 KB JSON document (`JSON_DOCUMENT`)                  |
 * | `/whoami`                      | `{"name": <server name>}`: differs between the two      |
 * | `/gzip`                        | `JSON_DOCUMENT` gzip-encoded, exact bytes `GZIP_BYTES`  |
 * | `/slow?ms=N`                   | `{"slept": N}` after N ms                               |
 * | `/status/N`                    | status N, `{"status": N}`                               |
 * | `/large?bytes=N`               | N bytes of `a`, with Content-Length                     |
 * | `/chunked?chunks=N&delay=ms`   | N chunks `chunk <i>\n`, `delay` ms apart, no length     |
 * | `/reset-mid-body`              | one chunk, then the connection breaks                   |
 * | `/echo`                        | method, path, headers and body length as JSON          |
 * | `/hop-by-hop`                  | a response carrying hop-by-hop headers                  |
 * | anything else                  | `{"path": <path>}`                                      |
 */
import { afterAll, afterEach, beforeAll } from 'bun:test'
import { gzipSync } from 'node:zlib'

export { ephemeralPortRange, freePort, freePorts, refusedUrl } from './ports.ts'

export interface RecordedRequest {
  readonly method: string
  /** Path and query. */
  readonly target: string
  readonly headers: Headers
  readonly body: Uint8Array
  /** performance.now() when the request arrived. */
  readonly receivedAt: number
  /** The client's port: requests on one keep-alive connection share it. */
  readonly remotePort: number
}

/** A route handler; the request body has already been read into `body`. */
export type UpstreamHandler = (request: Request, body: Uint8Array) => Response | Promise<Response>

export interface TestUpstream {
  readonly name: string
  readonly url: string
  readonly port: number
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[]
  /** Replaces the answer for one path (query ignored) until `reset()`. */
  route(path: string, handler: UpstreamHandler): void
  /** Resolves with the requests once at least `count` arrived; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>
  /** Forgets the recorded requests and the overridden routes. */
  reset(): void
  stop(): Promise<void>
}

/** About 2 KB of JSON, like a typical API answer. */
export const JSON_DOCUMENT = Object.freeze({
  data: Array.from({ length: 16 }, (_, i) => ({
    id: i + 1,
    name: `item-${i + 1}`,
    price: Math.round((i + 1) * 10.25 * 100) / 100,
    tags: ['alpha', 'beta'],
    in_stock: i % 3 !== 0,
    updated_at: '2026-01-01T00:00:00Z',
  })),
  pagination: { limit: 16, offset: 0, total: 16, has_more: false },
})
export const JSON_TEXT = JSON.stringify(JSON_DOCUMENT)
export const GZIP_BYTES = new Uint8Array(gzipSync(JSON_TEXT))

const encoder = new TextEncoder()

/** A JSON answer with the same Content-Type as the built-in routes (`Response.json` adds a charset). */
export function json(value: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers)
  if (!headers.has('content-type')) headers.set('content-type', 'application/json')
  return new Response(JSON.stringify(value), { ...init, headers })
}

/** `value` as gzip-encoded JSON, with Content-Encoding. */
export function gzipJson(value: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers)
  headers.set('content-type', 'application/json')
  headers.set('content-encoding', 'gzip')
  return new Response(new Uint8Array(gzipSync(JSON.stringify(value))), { ...init, headers })
}

function builtIn(name: string, request: Request, body: Uint8Array): Response | Promise<Response> {
  const url = new URL(request.url)
  const path = url.pathname
  const number = (key: string, fallback: number) => Number(url.searchParams.get(key) ?? fallback)
  if (path === '/json') return new Response(JSON_TEXT, { headers: { 'content-type': 'application/json' } })
  if (path === '/whoami') return json({ name })
  if (path === '/gzip') {
    return new Response(GZIP_BYTES, { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } })
  }
  if (path === '/slow') {
    const ms = number('ms', 1000)
    return Bun.sleep(ms).then(() => json({ slept: ms }))
  }
  if (path.startsWith('/status/')) {
    const status = Number(path.slice('/status/'.length))
    return json({ status }, { status })
  }
  if (path === '/large') return new Response(new Uint8Array(number('bytes', 1_000_000)).fill(97))
  if (path === '/chunked') {
    const chunks = number('chunks', 3)
    const delay = number('delay', 50)
    let i = 0
    return new Response(
      new ReadableStream({
        async pull(controller) {
          if (i > 0) await Bun.sleep(delay)
          if (i >= chunks) return controller.close()
          controller.enqueue(encoder.encode(`chunk ${i++}\n`))
        },
      }),
      { headers: { 'content-type': 'text/plain' } },
    )
  }
  if (path === '/reset-mid-body') {
    let sent = false
    return new Response(
      new ReadableStream({
        async pull(controller) {
          if (!sent) {
            sent = true
            controller.enqueue(encoder.encode('partial'))
            return
          }
          await Bun.sleep(20)
          controller.error(new Error('upstream broke the connection'))
        },
      }),
    )
  }
  if (path === '/echo') {
    return json({
      method: request.method,
      target: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      body_length: body.byteLength,
    })
  }
  if (path === '/hop-by-hop') {
    return new Response('ok', {
      headers: { connection: 'x-private', 'x-private': 'secret', 'keep-alive': 'timeout=5', 'x-end-to-end': 'kept' },
    })
  }
  return json({ path })
}

/** Starts one upstream on 127.0.0.1 (a free port unless `port` is given). */
export async function startUpstream(name: string, options: { port?: number } = {}): Promise<TestUpstream> {
  const requests: RecordedRequest[] = []
  const routes = new Map<string, UpstreamHandler>()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: options.port ?? 0,
    idleTimeout: 30,
    async fetch(request, server) {
      const receivedAt = performance.now()
      const remotePort = server.requestIP(request)?.port ?? 0
      const url = new URL(request.url)
      let body: Uint8Array
      try {
        body = await request.bytes()
      } catch {
        return new Response('body read failed', { status: 400 })
      }
      requests.push({
        method: request.method,
        target: url.pathname + url.search,
        headers: request.headers,
        body,
        receivedAt,
        remotePort,
      })
      const handler = routes.get(url.pathname)
      return handler ? handler(request, body) : builtIn(name, request, body)
    },
  })
  const port = server.port!
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    route: (path, handler) => void routes.set(path, handler),
    waitForRequests: (count, timeoutMs = 5000) =>
      waitFor(() => (requests.length >= count ? requests : undefined), timeoutMs, `${count} requests at ${name}`),
    reset() {
      requests.length = 0
      routes.clear()
    },
    stop: () => server.stop(true),
  }
}

/** Live and shadow, started together. */
export async function startUpstreamPair(): Promise<{ live: TestUpstream; shadow: TestUpstream; stop(): Promise<void> }> {
  const [live, shadow] = await Promise.all([startUpstream('live'), startUpstream('shadow')])
  return {
    live,
    shadow,
    async stop() {
      await Promise.all([live.stop(), shadow.stop()])
    },
  }
}

/**
 * Live and shadow for a test file or suite: started before its tests,
 * reset after each test (routes and recorded requests), stopped after all.
 * `ready` receives them.
 */
export function useUpstreamPair(ready: (pair: { live: TestUpstream; shadow: TestUpstream }) => void): void {
  let pair: Awaited<ReturnType<typeof startUpstreamPair>> | undefined
  beforeAll(async () => {
    pair = await startUpstreamPair()
    ready(pair)
  })
  afterEach(() => {
    pair?.live.reset()
    pair?.shadow.reset()
  })
  afterAll(() => pair?.stop())
}

/** A TCP server that accepts connections and breaks them as soon as a request arrives (a reset upstream). */
export function startResettingServer(): { url: string; port: number; stop(): void } {
  const listener = Bun.listen({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      data(socket) {
        socket.terminate()
      },
    },
  })
  return { url: `http://127.0.0.1:${listener.port}`, port: listener.port, stop: () => listener.stop(true) }
}

/**
 * Polls `probe` until it returns a value (not undefined), at most
 * `timeoutMs`, every `intervalMs`: bounded waiting instead of fixed sleeps.
 */
export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 5000,
  what = 'condition',
  intervalMs = 10,
): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await Bun.sleep(intervalMs)
  }
}
