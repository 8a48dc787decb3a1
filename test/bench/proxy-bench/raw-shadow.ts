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

interface Pair {
  live?: Bun.Socket<undefined>
  shadow?: Bun.Socket<undefined>
  waitingLive: Buffer[]
  waitingShadow: Buffer[]
  liveBody?: Buffer
  shadowBody?: Buffer
}

export function serveRawShadow(port: number, liveUrl: string, shadowUrl: string): void {
  const compiled = compileCaptureOptions({ diff: DEFAULT_DIFF_CONFIG, redactedFields: [], maxBodyBytes: 0 })
  const live = new URL(liveUrl)
  const shadow = new URL(shadowUrl)
  const compare = (pair: Pair) => {
    if (pair.liveBody === undefined || pair.shadowBody === undefined) return
    if (!pair.liveBody.equals(pair.shadowBody)) {
      processCapture(
        {
          request: { headers: {}, body: new Uint8Array(0) },
          live: { status: 200, headers: JSON_HEADERS, body: pair.liveBody },
          shadow: { status: 200, headers: JSON_HEADERS, body: pair.shadowBody },
        },
        compiled,
      )
    }
    pair.liveBody = undefined
    pair.shadowBody = undefined
  }
  Bun.listen<Pair>({
    hostname: '127.0.0.1',
    port,
    socket: {
      open(client) {
        const pair: Pair = { waitingLive: [], waitingShadow: [] }
        client.data = pair
        const liveReader = new ResponseReader()
        const shadowReader = new ResponseReader()
        void Bun.connect({
          hostname: live.hostname,
          port: Number(live.port),
          socket: {
            open(socket) {
              pair.live = socket
              for (const chunk of pair.waitingLive.splice(0)) socket.write(chunk)
            },
            data(_socket, chunk) {
              client.write(chunk)
              const body = liveReader.feed(chunk)
              if (body !== undefined) {
                pair.liveBody = body
                compare(pair)
              }
            },
            close() {
              client.end()
            },
          },
        })
        void Bun.connect({
          hostname: shadow.hostname,
          port: Number(shadow.port),
          socket: {
            open(socket) {
              pair.shadow = socket
              for (const chunk of pair.waitingShadow.splice(0)) socket.write(chunk)
            },
            data(_socket, chunk) {
              const body = shadowReader.feed(chunk)
              if (body !== undefined) {
                pair.shadowBody = body
                compare(pair)
              }
            },
          },
        })
      },
      data(client, chunk) {
        const pair = client.data
        if (pair.live) pair.live.write(chunk)
        else pair.waitingLive.push(Buffer.from(chunk))
        if (pair.shadow) pair.shadow.write(chunk)
        else pair.waitingShadow.push(Buffer.from(chunk))
      },
      close(client) {
        client.data.live?.end()
        client.data.shadow?.end()
      },
    },
  })
}
