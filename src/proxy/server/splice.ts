/**
 * A connection the raw server does not serve itself (`request-head.ts`
 * says which), handed byte for byte to Bun.serve on 127.0.0.1, where the
 * same shadow handler answers it as the Bun.serve server does (docs/proxy.md
 * "The raw server"). Backpressure holds both ways: a side that does not
 * take bytes pauses the reading of the other. Bun.serve sees the splice's
 * own address as its peer: `addresses` maps the splice's local port to the
 * client's address, for X-Forwarded-For.
 */
import type { RawConnection, SplicedTo } from './raw-connection.ts'

/** The client's address of each spliced connection, by the splice's local port (what Bun.serve sees as the peer's port). */
export type SpliceAddresses = Map<number, string>

/** What a socket of the splice needs: writing, and pausing its reading. */
interface SpliceSocket {
  write(bytes: Buffer): number
  pause(): void
  resume(): void
}

/**
 * One direction of the splice: bytes from `source` to `target`, what
 * `target` does not take held (in order) with `source` paused until it has.
 */
class Direction {
  private held: Buffer | undefined

  constructor(
    private readonly source: SpliceSocket,
    /** Undefined until it opens: everything is held meanwhile. */
    public target: SpliceSocket | undefined,
  ) {}

  /** @param bytes valid during the call only (a socket's own buffer): copied when held */
  send(bytes: Buffer): void {
    if (this.target === undefined || this.held !== undefined) {
      this.held = this.held === undefined ? Buffer.from(bytes) : Buffer.concat([this.held, bytes])
      this.source.pause()
      return
    }
    const written = this.target.write(bytes)
    if (written < bytes.byteLength) {
      this.held = Buffer.from(bytes.subarray(Math.max(0, written)))
      this.source.pause()
    }
  }

  /** The target has room again (or just opened). */
  flush(): void {
    const held = this.held
    if (held === undefined || this.target === undefined) return
    const written = this.target.write(held)
    if (written < held.byteLength) {
      this.held = held.subarray(Math.max(0, written))
      return
    }
    this.held = undefined
    this.source.resume()
  }

  /** What is still held, handed over once (the target is closing). */
  take(): Buffer | undefined {
    const held = this.held
    this.held = undefined
    return held
  }
}

export function splice(connection: RawConnection, first: Buffer, port: number, addresses: SpliceAddresses): void {
  const client = connection.socket
  let inner: Bun.Socket<undefined> | undefined
  let localPort = 0
  // Inner is not open yet: its first bytes wait in `toInner`, the client paused.
  const toInner = new Direction(client, undefined)
  toInner.send(first)
  let toClient: Direction | undefined
  // The raw server's inactivity timeout no longer applies: Bun.serve's does, on its side of the splice.
  client.timeout(0)

  const spliced: SplicedTo = {
    fromClient: (chunk) => toInner.send(chunk),
    clientWritable: () => toClient?.flush(),
    clientClosed: () => inner?.end(),
  }
  connection.spliced = spliced
  Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      open(socket) {
        inner = socket
        localPort = socket.localPort
        addresses.set(localPort, connection.address)
        toClient = new Direction(socket, client)
        if (connection.closed) {
          socket.end()
          return
        }
        toInner.target = socket
        toInner.flush()
      },
      data: (_socket, chunk) => toClient!.send(chunk),
      drain: () => toInner.flush(),
      end(socket) {
        socket.end()
      },
      close() {
        addresses.delete(localPort)
        // What Bun.serve wrote is passed on first: its last response, or its 400 to a malformed request.
        const rest = toClient?.take()
        if (rest === undefined) client.end()
        else client.end(rest)
      },
      error() {},
    },
  }).catch(() => client.terminate())
}
