/**
 * A hostile upstream: a raw TCP server on 127.0.0.1 that answers each
 * request, by its path, with bytes no well-behaved server sends (a head
 * dribbled a byte at a time, a body that never ends, framing that lies).
 * Each answer waits for `hold` first, so that a test can show that live's
 * response never waits for it.
 */

/** Writes to the connection; `open()` is false once it closed (the client gave up). */
export interface HostileConnection {
  write(bytes: string | Uint8Array): void
  /** Closes the connection after what was written (a body cut short, say). */
  end(): void
  open(): boolean
}

export type HostileAnswer = (connection: HostileConnection) => Promise<void> | void

export interface HostileUpstream {
  readonly url: string
  /** Connections still open. */
  readonly openConnections: number
  /** Bytes given to `write` so far, all connections together (sent, or waiting for the socket to take them). */
  readonly written: number
  stop(): void
}

interface State {
  closed: boolean
  answered: boolean
  /** Bytes the socket did not take yet, in order: written on `drain`. */
  unsent: Buffer[]
  /** `end()` came while bytes were unsent: the connection ends once they are out. */
  endWhenSent: boolean
}

/** Hands `socket` what it will take of its unsent bytes; ends it when asked and all are out. */
function flush(socket: Bun.Socket<State>): void {
  const state = socket.data
  while (state.unsent.length > 0 && !state.closed) {
    const bytes = state.unsent[0]!
    const taken = Math.max(0, socket.write(bytes))
    if (taken < bytes.byteLength) {
      state.unsent[0] = bytes.subarray(taken)
      return
    }
    state.unsent.shift()
  }
  if (state.endWhenSent && !state.closed) socket.end()
}

/**
 * @param answers by request path; an unknown path gets a 404
 * @param hold awaited before each answer is written
 */
export function startHostileUpstream(answers: Record<string, HostileAnswer>, hold: () => Promise<void> = async () => {}): HostileUpstream {
  const sockets = new Set<Bun.Socket<State>>()
  let written = 0
  const listener = Bun.listen<State>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        socket.data = { closed: false, answered: false, unsent: [], endWhenSent: false }
        socket.setNoDelay(true)
        sockets.add(socket)
      },
      data(socket, data) {
        // One request per connection: what follows its head (a body) is ignored.
        if (socket.data.answered) return
        socket.data.answered = true
        const path = data.toString('latin1').split(' ')[1] ?? '/'
        const answer = answers[path] ?? ((c: HostileConnection) => c.write('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'))
        const connection: HostileConnection = {
          write(bytes) {
            if (socket.data.closed) return
            written += typeof bytes === 'string' ? Buffer.byteLength(bytes, 'latin1') : bytes.byteLength
            // A copy: the caller may reuse its array, and a large write is taken in parts (the rest on `drain`).
            socket.data.unsent.push(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes))
            flush(socket)
          },
          end() {
            if (socket.data.closed) return
            socket.data.endWhenSent = true
            flush(socket)
          },
          open: () => !socket.data.closed,
        }
        void hold()
          .then(() => answer(connection))
          .catch(() => {})
      },
      drain(socket) {
        flush(socket)
      },
      close(socket) {
        socket.data.closed = true
        sockets.delete(socket)
      },
      error(socket) {
        socket.data.closed = true
        sockets.delete(socket)
      },
    },
  })
  return {
    url: `http://127.0.0.1:${listener.port}`,
    get openConnections() {
      return sockets.size
    },
    get written() {
      return written
    },
    stop() {
      for (const socket of sockets) socket.terminate()
      listener.stop(true)
    },
  }
}

/** Writes `bytes` a piece of `size` at a time, yielding to the event loop between pieces, while the connection is open. */
export async function dribble(connection: HostileConnection, bytes: string, size = 1): Promise<void> {
  for (let i = 0; i < bytes.length && connection.open(); i += size) {
    connection.write(bytes.slice(i, i + size))
    await Bun.sleep(0)
  }
}

/** Chunks of `chunk` for as long as the connection stays open (at most `maxMs`, so that the server never outlives its test). */
export async function endlessChunks(connection: HostileConnection, chunk: string, maxMs = 10_000): Promise<void> {
  const deadline = performance.now() + maxMs
  const piece = `${Buffer.byteLength(chunk, 'latin1').toString(16)}\r\n${chunk}\r\n`
  while (connection.open() && performance.now() < deadline) {
    connection.write(piece)
    await Bun.sleep(1)
  }
}
