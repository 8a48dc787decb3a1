/**
 * One keep-alive connection of the shadow's HTTP/1.1 client
 * (`http1-client.ts`) over `Bun.connect`: one exchange at a time, its
 * response fed to a `ResponseReader` as the socket delivers it.
 */
import type { AbortLike } from '../../async/abort-flag.ts'
import type { ReadControl, ResponseReader } from './http1-response.ts'

/** What is told when an exchange's response head is in. */
export interface HeadWatcher {
  headCame(): void
}

/**
 * Told how an exchange ended, once, from the socket's own callback: no
 * promise between the response's last bytes and what the caller does next
 * (live's relay answers the client there; docs/proxy.md "The raw server").
 */
export interface ExchangeListener {
  /** The response is read (`reader` says how it ended). */
  exchangeDone(): void
  /** No response, or one cut short: the connection's error, the signal's reason or a StaleConnectionError. */
  exchangeFailed(error: unknown): void
}

/** A reused keep-alive connection closed before any byte of the response: the server had let it go. */
export class StaleConnectionError extends Error {
  readonly code = 'ECONNRESET'
  constructor() {
    super('connection reset (a kept-alive connection the server had closed)')
  }
}

/** One socket, one exchange at a time. */
export class Connection implements ReadControl {
  socket: Bun.Socket<Connection> | undefined
  closed = false
  reused = false
  idleSince = 0
  /** performance.now() from which the server may have closed it while idle (its `Keep-Alive: timeout=`); Infinity when it did not say. */
  reusableUntil = Infinity
  /** When the current exchange's response head came in (performance.now()). */
  headAt = 0
  /** Whether the current exchange's request went out whole. */
  requestWritten = false
  /** Its reading is paused (`pause`). */
  private paused = false
  /** Set while the connection is in an idle list, to take it out when it closes there. */
  onIdleClose: ((connection: Connection) => void) | undefined
  private reader: ResponseReader | undefined
  private unsent: Buffer | undefined
  private listener: ExchangeListener | undefined
  private signal: AbortLike | undefined
  /** Told when the current exchange's head is in (its head deadline). */
  private onHead: HeadWatcher | undefined
  private readonly onAbort = () => this.abortWith(this.signal!.reason)

  /**
   * Writes `bytes` and feeds the response to `reader`; `listener` is told
   * how it ended (at once when the signal was aborted or the connection
   * closed already).
   */
  exchange(bytes: Buffer, reader: ResponseReader, signal: AbortLike, listener: ExchangeListener, onHead?: HeadWatcher): void {
    if (signal.aborted) {
      this.close()
      listener.exchangeFailed(signal.reason)
      return
    }
    if (this.closed) {
      listener.exchangeFailed(this.reused ? new StaleConnectionError() : closedError())
      return
    }
    this.reader = reader
    if (reader.relay !== undefined) reader.relay.reading = this
    // A relay that paused it for a slow client may have ended before it resumed it.
    if (this.paused) this.resume()
    this.headAt = 0
    this.requestWritten = false
    this.signal = signal
    this.onHead = onHead
    // No `once` option: an abort event fires once, `settle` removes the
    // listener, and the options object costs more than the listener itself.
    signal.addEventListener('abort', this.onAbort)
    this.listener = listener
    this.write(bytes)
  }

  onData(chunk: Buffer): void {
    const reader = this.reader
    if (reader === undefined) {
      // Bytes on an idle connection: nothing was asked; it cannot be trusted.
      this.close()
      return
    }
    let state
    try {
      state = reader.push(chunk)
      if (this.headAt === 0 && reader.head !== undefined) this.headIn()
    } catch (error) {
      this.fail(error)
      this.close()
      return
    }
    // Outside the try: what the listener does next (this connection put back idle, say) is not this response's failure.
    if (state !== 'more') this.succeed()
  }

  onDrain(): void {
    const rest = this.unsent
    if (rest === undefined) return
    this.unsent = undefined
    this.write(rest)
  }

  onClose(error?: unknown): void {
    if (this.closed) return
    this.closed = true
    this.onIdleClose?.(this)
    const reader = this.reader
    if (reader === undefined) return
    if (!reader.received && this.reused) {
      this.fail(new StaleConnectionError())
      return
    }
    try {
      reader.end()
      if (this.headAt === 0 && reader.head !== undefined) this.headIn()
    } catch (endError) {
      this.fail(error ?? endError)
      return
    }
    this.succeed()
  }

  close(): void {
    if (!this.closed) this.socket?.terminate()
    this.onClose()
  }

  /**
   * Ends `listener`'s exchange on this connection as an abort of its
   * signal would, with `reason` (its head deadline passed, say); false
   * when the exchange on it is not `listener`'s.
   */
  abortExchange(listener: ExchangeListener, reason: unknown): boolean {
    if (this.listener !== listener) return false
    this.abortWith(reason)
    return true
  }

  /** Stops reading: a relayed response's client is not taking bytes as fast as they come. */
  pause(): void {
    this.paused = true
    this.socket?.pause()
  }

  resume(): void {
    this.paused = false
    this.socket?.resume()
  }

  private headIn(): void {
    this.headAt = performance.now()
    this.onHead?.headCame()
  }

  private abortWith(reason: unknown): void {
    try {
      this.fail(reason)
    } finally {
      // Closed whatever the listener does: an aborted exchange's connection is never reused.
      this.close()
    }
  }

  private write(bytes: Buffer): void {
    const written = this.socket!.write(bytes)
    if (written < bytes.byteLength) this.unsent = bytes.subarray(Math.max(0, written))
    else this.requestWritten = true
  }

  private succeed(): void {
    const listener = this.listener
    this.settle()
    listener?.exchangeDone()
  }

  private fail(error: unknown): void {
    const listener = this.listener
    this.settle()
    listener?.exchangeFailed(error)
  }

  private settle(): void {
    this.signal?.removeEventListener('abort', this.onAbort)
    this.signal = undefined
    this.onHead = undefined
    this.reader = undefined
    this.unsent = undefined
    this.listener = undefined
  }
}

function closedError(): Error {
  return Object.assign(new Error('connection closed'), { code: 'ECONNRESET' })
}

const handlers: Bun.SocketHandler<Connection> = {
  data: (socket, chunk) => socket.data.onData(chunk),
  drain: (socket) => socket.data.onDrain(),
  end: (socket) => {
    // The server is done with the connection: so are we.
    socket.data.onClose()
    socket.terminate()
  },
  close: (socket, error) => socket.data.onClose(error),
  error: (socket, error) => socket.data.onClose(error),
}

/** Connects, or rejects with the connect error or the signal's reason, whichever comes first. */
export function connect(hostname: string, port: number, signal: AbortLike): Promise<Connection> {
  if (signal.aborted) return Promise.reject(signal.reason)
  const connection = new Connection()
  return new Promise<Connection>((resolve, reject) => {
    let aborted = false
    const onAbort = () => {
      aborted = true
      reject(signal.reason)
    }
    // Removed below either way; an abort event fires once (no `once` option, which costs more).
    signal.addEventListener('abort', onAbort)
    Bun.connect<Connection>({ hostname, port, data: connection, socket: handlers }).then(
      (socket) => {
        signal.removeEventListener('abort', onAbort)
        connection.socket = socket
        socket.setNoDelay(true)
        if (aborted) connection.close()
        else resolve(connection)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
