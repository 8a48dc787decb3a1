/**
 * A reference for the proxy benchmark's CPU figures, not a proxy to run:
 * the shadowing floor of Bun's raw sockets (`Bun.listen`, `Bun.connect`),
 * without Request and Response objects per hop. Enough HTTP/1.1 for the
 * benchmark and no more: GETs without a body, no pipelining, responses
 * framed by Content-Length. Each client connection gets one connection to
 * live and one to the shadow; the client's bytes go to both, live's stream
 * back as they come, and each pair of responses is compared once both are
 * complete: equal bytes are a match, otherwise the bodies go through
 * processCapture as in `minimal-shadow` (cpu.ts). What it leaves out
 * (bodies, chunked framing, header rules, limits, timeouts, capture
 * records, metrics) is what our proxy does on top, so the gap between the
 * two is an upper bound on what a raw-socket data path could win
 * (docs/benchmarks/proxy.md).
 */
import { compileCaptureOptions, DEFAULT_DIFF_CONFIG, processCapture } from '../../../src/diff/index.ts'
import { SHARED_PORT } from './http1-floors.ts'

const HEAD_END = Buffer.from('\r\n\r\n')
/** The benchmark's upstreams answer JSON (fleet.ts): the bodies are diffed as JSON, as minimal-shadow's are. */
const JSON_HEADERS = { 'Content-Type': ['application/json'] }

/** One response being read: its bytes so far and, once the head is in, its total length. */
class ResponseReader {
  private chunks: Buffer[] = []
  private length = 0
  private total = -1

  /** The response's body once `chunk` completes it, else undefined. */
  feed(chunk: Buffer): Buffer | undefined {
    this.chunks.push(chunk)
    this.length += chunk.length
    if (this.total < 0) {
      const all = this.joined()
      const end = all.indexOf(HEAD_END)
      if (end < 0) return undefined
      const contentLength = /\r\ncontent-length:\s*(\d+)/i.exec(all.subarray(0, end).toString('latin1'))
      this.total = end + 4 + (contentLength ? Number(contentLength[1]) : 0)
    }
    if (this.length < this.total) return undefined
    const all = this.joined()
    const body = Buffer.from(all.subarray(all.indexOf(HEAD_END) + 4, this.total))
    this.chunks = []
    this.length = 0
    this.total = -1
    return body
  }

  private joined(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)]
    return this.chunks[0]!
  }
}

/** One side's connection for one client: its bytes before it is open, the last body it completed. */
class Upstream {
  private socket: Bun.Socket<undefined> | undefined
  private waiting: Buffer[] = []
  private readonly reader = new ResponseReader()
  body: Buffer | undefined

  /**
   * Connects to `url`; `onChunk` sees each chunk of its responses, `onBody`
   * each completed body, `onClose` the connection's end.
   */
  constructor(url: URL, handlers: { onChunk?(chunk: Buffer): void; onBody(): void; onClose?(): void }) {
    void Bun.connect({
      hostname: url.hostname,
      port: Number(url.port),
      socket: {
        open: (socket) => {
          this.socket = socket
          for (const chunk of this.waiting.splice(0)) socket.write(chunk)
        },
        data: (_socket, chunk) => {
          handlers.onChunk?.(chunk)
          const body = this.reader.feed(chunk)
          if (body === undefined) return
          this.body = body
          handlers.onBody()
        },
        close: () => handlers.onClose?.(),
      },
    })
  }

  send(chunk: Buffer): void {
    if (this.socket) this.socket.write(chunk)
    else this.waiting.push(Buffer.from(chunk))
  }

  end(): void {
    this.socket?.end()
  }
}

interface Pair {
  live: Upstream
  shadow: Upstream
}

export function serveRawShadow(port: number, liveUrl: string, shadowUrl: string): void {
  const compiled = compileCaptureOptions({ diff: DEFAULT_DIFF_CONFIG, redactedFields: [], maxBodyBytes: 0 })
  const live = new URL(liveUrl)
  const shadow = new URL(shadowUrl)
  const compare = ({ live, shadow }: Pair) => {
    if (live.body === undefined || shadow.body === undefined) return
    if (!live.body.equals(shadow.body)) {
      processCapture(
        {
          request: { headers: {}, body: new Uint8Array(0) },
          live: { status: 200, headers: JSON_HEADERS, body: live.body },
          shadow: { status: 200, headers: JSON_HEADERS, body: shadow.body },
        },
        compiled,
      )
    }
    live.body = undefined
    shadow.body = undefined
  }
  // PROXY_CPU_PROCESSES copies share the port, as SVC_APP_WORKERS's do.
  // Bun.listen honours reusePort (1.4.5), though its types list it for
  // connect only.
  const options: Bun.TCPSocketListenOptions<Pair> & { reusePort: boolean } = {
    hostname: '127.0.0.1',
    port,
    reusePort: SHARED_PORT,
    socket: {
      open(client) {
        const pair: Pair = {
          live: new Upstream(live, {
            onChunk: (chunk) => client.write(chunk),
            onBody: () => compare(pair),
            onClose: () => client.end(),
          }),
          shadow: new Upstream(shadow, { onBody: () => compare(pair) }),
        }
        client.data = pair
      },
      data(client, chunk) {
        client.data.live.send(chunk)
        client.data.shadow.send(chunk)
      },
      close(client) {
        client.data.live.end()
        client.data.shadow.end()
      },
    },
  }
  Bun.listen(options)
}
