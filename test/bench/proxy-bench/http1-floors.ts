/**
 * Two more references for `cpu.ts`, not proxies to run: where the CPU of a
 * shadowed request goes between `raw-shadow.ts` (Bun's raw sockets, one
 * pinned connection per client connection, nothing else) and our proxy.
 * Both shadow every GET to live and the shadow through our HTTP/1.1
 * client (`http1-client.ts`, pooled keep-alive connections, the response
 * read whole) and compare the bodies (equal bytes a match, otherwise
 * processCapture); they differ only in the server in front:
 *
 *   serve-http1  Bun.serve, live's answer sent as a new Response
 *   raw-http1    Bun.listen, a request head read by hand (GETs without a
 *                body, no pipelining), live's answer written as bytes
 *   serve-fetch  Bun.serve, live through fetch (read whole, sent as a new
 *                Response), the shadow through our client: our proxy's
 *                own shape with nothing of its pipeline
 *
 * The gap between the two is what Bun's HTTP server costs over raw
 * sockets; the gap between raw-http1 and raw-shadow is what a pooled,
 * general HTTP/1.1 client costs over pinned sockets; the gap between
 * serve-fetch and our proxy is the pipeline's own work
 * (docs/benchmarks/proxy.md "A raw-socket server, built and measured").
 */
import { compileCaptureOptions, DEFAULT_DIFF_CONFIG, processCapture, type HeaderMap } from '../../../src/diff/index.ts'
import { pathAndQueryOf } from '../../../src/net/request-target.ts'
import { DEFAULT_HTTP_CLIENT } from '../../../src/proxy/index.ts'
import type { ShadowClient, UpstreamRequest } from '../../../src/proxy/upstream/upstream-client.ts'
import { createUpstreamPool } from '../../../src/proxy/upstream/upstream-pool.ts'

type Http1Request = UpstreamRequest & { readonly body: null }

/** How many copies of a reference share one port (`cpu.ts`, PROXY_CPU_PROCESSES). */
export const REFERENCE_PROCESSES = Number(process.env.PROXY_CPU_PROCESSES ?? 1)
export const SHARED_PORT = REFERENCE_PROCESSES > 1

const HEAD_END = Buffer.from('\r\n\r\n')
const EMPTY = new Uint8Array(0)

/** The shadow's client and the comparison of two whole answers; live is asked by each reference its own way. */
function shadowing(shadowUrl: string) {
  // One connection per client connection, as our proxy is run in the benchmark.
  const pool = createUpstreamPool({ settings: { ...DEFAULT_HTTP_CLIENT, maxConnsPerHost: 256, maxIdleConnsPerHost: 256, maxIdleConns: 0 } })
  const shadow = pool.shadowClient(shadowUrl)
  const compiled = compileCaptureOptions({ diff: DEFAULT_DIFF_CONFIG, redactedFields: [], maxBodyBytes: 0 })
  const signal = new AbortController().signal
  const compare = (l: Whole, s: Whole) => {
    if (Buffer.from(s.body.buffer, s.body.byteOffset, s.body.byteLength).equals(l.body)) return
    processCapture({ request: { headers: {}, body: EMPTY }, live: l, shadow: s }, compiled)
  }
  return {
    /** Our HTTP/1.1 client to `url`, on the same pool. */
    client: (url: string) => pool.shadowClient(url),
    request: (method: string, pathAndQuery: string, headers: Headers): Http1Request => ({ method, pathAndQuery, headers, body: null, signal }),
    /** Sends `request` to the shadow now; the function returned compares live's answer with it in the background. */
    begin(request: Http1Request): (live: Whole | undefined) => void {
      const shadowSide = whole(shadow, request)
      return (live) => {
        if (live !== undefined) void shadowSide.then((s) => s !== undefined && compare(live, s))
      }
    },
  }
}

/** Live through our HTTP/1.1 client as well: resolves with live's answer, compares in the background. */
function ownClients(liveUrl: string, shadowUrl: string) {
  const both = shadowing(shadowUrl)
  const live = both.client(liveUrl)
  return async (method: string, pathAndQuery: string, headers: Headers): Promise<Whole | undefined> => {
    const request = both.request(method, pathAndQuery, headers)
    const compareWith = both.begin(request)
    const answer = await whole(live, request)
    compareWith(answer)
    return answer
  }
}

interface Whole {
  readonly status: number
  readonly headers: HeaderMap
  readonly body: Uint8Array
}

async function whole(client: ShadowClient, request: Http1Request): Promise<Whole | undefined> {
  try {
    const r = await client.send(request, 0)
    return r.kind === 'complete' ? r : undefined
  } catch {
    return undefined
  }
}

export function serveHttp1(port: number, liveUrl: string, shadowUrl: string): void {
  const send = ownClients(liveUrl, shadowUrl)
  Bun.serve({
    hostname: '127.0.0.1',
    port,
    reusePort: SHARED_PORT,
    async fetch(request) {
      const l = await send(request.method, pathAndQueryOf(request.url), request.headers)
      if (l === undefined) return new Response(null, { status: 502 })
      const headers = new Headers()
      for (const name in l.headers) if (name !== 'Content-Length') for (const value of l.headers[name]!) headers.append(name, value)
      return new Response(l.body as BodyInit, { status: l.status, headers })
    },
  })
}

export function serveFetchHttp1(port: number, liveUrl: string, shadowUrl: string): void {
  const both = shadowing(shadowUrl)
  // One connection per client connection to live too, as our proxy is run in the benchmark.
  const session = new Bun.FetchSession({ keepAlive: { maxIdleSockets: 64, idleTimeout: 90 } })
  Bun.serve({
    hostname: '127.0.0.1',
    port,
    reusePort: SHARED_PORT,
    async fetch(request) {
      const pathAndQuery = pathAndQueryOf(request.url)
      const compareWith = both.begin(both.request(request.method, pathAndQuery, request.headers))
      const init = { method: request.method, headers: request.headers, redirect: 'manual', decompress: false, session }
      const live = await fetch(liveUrl + pathAndQuery, init as BunFetchRequestInit)
      const body = await live.bytes()
      compareWith({ status: live.status, headers: {}, body })
      return new Response(body, { status: live.status, headers: live.headers })
    },
  })
}

export function serveRawHttp1(port: number, liveUrl: string, shadowUrl: string): void {
  const send = ownClients(liveUrl, shadowUrl)
  Bun.listen<{ held: Buffer | undefined }>({
    hostname: '127.0.0.1',
    port,
    socket: {
      open(socket) {
        socket.data = { held: undefined }
      },
      async data(socket, chunk) {
        const all = socket.data.held === undefined ? chunk : Buffer.concat([socket.data.held, chunk])
        const end = all.indexOf(HEAD_END)
        if (end < 0) {
          socket.data.held = Buffer.from(all)
          return
        }
        socket.data.held = undefined
        const text = all.toString('latin1', 0, end)
        const lines = text.split('\r\n')
        const [method, target] = lines[0]!.split(' ')
        const headers = new Headers()
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(':')
          if (line.slice(0, colon).toLowerCase() !== 'host') headers.append(line.slice(0, colon), line.slice(colon + 1).trim())
        }
        const l = await send(method!, target!, headers)
        if (l === undefined) {
          socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n')
          return
        }
        let head = `HTTP/1.1 ${l.status} OK\r\n`
        for (const name in l.headers) {
          if (name === 'Content-Length' || name === 'Connection' || name === 'Keep-Alive') continue
          for (const value of l.headers[name]!) head += `${name}: ${value}\r\n`
        }
        socket.write(Buffer.concat([Buffer.from(`${head}content-length: ${l.body.byteLength}\r\n\r\n`, 'latin1'), l.body]))
      },
    },
  })
}
