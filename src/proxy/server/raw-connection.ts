/**
 * One client connection of the raw server (docs/proxy.md "The raw
 * server"): requests read one at a time, each handed to the shadow
 * handler's `relay` and its response written as live's relay gives it,
 * with the client's backpressure. A pipelining client's next request waits
 * in `held` until the response before it is through. The first request the
 * raw server does not take (`request-head.ts`), and everything after it on
 * the connection, goes to Bun.serve (`splice.ts`).
 */
import { FieldList } from '../../net/field-list.ts'
import type { Problem } from '../../errors/problem.ts'
import type { ClientSide, ClientWatcher } from '../pipeline/relay-live.ts'
import type { RelayedRequest } from '../pipeline/shadow-handler.ts'
import type { SentHead } from '../upstream/http1-response.ts'
import type { Framing, ResponseHead } from '../upstream/response-head.ts'
import { RAW_MAX_BODY_BYTES, RAW_MAX_HEAD_BYTES, scanRequestHead, type RequestHead } from './request-head.ts'
import { CHUNK_END, chunkSizeLine, clientHead, LAST_CHUNK, passesAsIs, problemResponseText } from './response-writer.ts'

/** What a connection needs of its server (`raw-server.ts`). */
export interface RawServerContext {
  /** Answers the request through `side`; `side.finished()` when it is over. */
  relay(request: RelayedRequest, side: ClientSide): void
  /** Hands the connection to Bun.serve, `bytes` (what it sent from the request not taken on) first. */
  splice(connection: RawConnection, bytes: Buffer): void
  /** Shutting down: a connection closes once its response is through. */
  readonly stopping: boolean
  /** The connection closed. */
  closed(connection: RawConnection): void
}

/** Where a spliced connection's bytes go (`splice.ts`). */
export interface SplicedTo {
  /** Bytes from the client. */
  fromClient(chunk: Buffer): void
  /** The client's socket has room again. */
  clientWritable(): void
  /** The client's connection closed. */
  clientClosed(): void
}

/** Bytes a client may send ahead of its response before its connection stops being read. */
const MAX_HELD_BYTES = RAW_MAX_HEAD_BYTES + RAW_MAX_BODY_BYTES
const CHUNK_END_BYTES = CHUNK_END.length
/** The first buffer a request arriving in pieces is gathered in. */
const MIN_HELD_BYTES = 16 * 1024

export class RawConnection implements ClientSide {
  watcher: ClientWatcher | undefined
  /** A request is being answered. */
  busy = false
  /** Set once the connection goes to Bun.serve: where its bytes go from then on. */
  spliced: SplicedTo | undefined
  closed = false
  /** Bytes read and not yet taken: the rest of a request, or the requests after it. */
  private held: Buffer | undefined
  /** The buffer `held` grows in (`append`). */
  private room: Buffer | undefined
  /** Whether `held` is the socket's own buffer (valid during its data callback only). */
  private heldBorrowed = false
  /** How far the search for the end of the head in `held` has looked. */
  private searched = 0
  /** A head read whose body is not all in yet. */
  private waiting: { readonly head: RequestHead; readonly bodyStart: number } | undefined
  private readPaused = false
  private closeAfter = false
  /** The method of the request being answered (a HEAD's answer has no body). */
  private method = ''
  private chunked = false
  /** The response head, written with the first piece of the body (one write for a small response). */
  private pendingHead: string | undefined
  /** Live's head as it came, when it goes out as it came: its bytes in the read being handled (until `flushHead`). */
  private sentHead: SentHead | undefined
  /** Bytes the socket did not take yet. */
  private unsent: Buffer | undefined
  private endWhenFlushed = false
  /** The current response's head was given (written, or waiting for the body's first piece). */
  private headGiven = false
  /** Within `start`: the relay may finish before it returns. */
  private starting = false
  /** The connection closes once what is held is written: no further request is read. */
  private closing = false

  constructor(
    readonly socket: Bun.Socket<RawConnection>,
    readonly address: string,
    private readonly server: RawServerContext,
  ) {}

  onData(chunk: Buffer): void {
    if (this.spliced !== undefined) {
      this.spliced.fromClient(chunk)
      return
    }
    if (this.held === undefined) {
      this.held = chunk
      this.heldBorrowed = true
    } else {
      this.held = this.append(this.held, chunk)
      this.heldBorrowed = false
    }
    if (!this.busy) this.readNext()
    if (this.held !== undefined && this.heldBorrowed) {
      this.held = Buffer.from(this.held)
      this.heldBorrowed = false
    }
    if (this.held !== undefined && this.held.byteLength > MAX_HELD_BYTES && !this.readPaused) {
      this.readPaused = true
      this.socket.pause()
    }
  }

  /**
   * `held` with `chunk` after it, in a buffer that doubles as it grows, so
   * that a body trickled in small pieces is copied a bounded number of
   * times, not once per piece.
   */
  private append(held: Buffer, chunk: Buffer): Buffer {
    const length = held.byteLength + chunk.byteLength
    let room = this.room
    if (room === undefined || room.buffer !== held.buffer || held.byteOffset !== room.byteOffset || length > room.byteLength) {
      room = Buffer.allocUnsafe(Math.max(length, held.byteLength * 2, MIN_HELD_BYTES))
      held.copy(room, 0)
      this.room = room
    }
    chunk.copy(room, held.byteLength)
    return room.subarray(0, length)
  }

  /**
   * Takes the next request from `held`, when it is all in, none is being
   * answered, and the client has taken the last response (a pipelining
   * client's next request then waits in `held`, read no further than
   * MAX_HELD_BYTES; a spliced one must not overtake the bytes still unsent).
   */
  private readNext(): void {
    while (!this.busy && !this.closed && !this.closing && this.unsent === undefined && this.held !== undefined && this.spliced === undefined) {
      const held = this.held
      let waiting = this.waiting
      if (waiting === undefined) {
        const scan = scanRequestHead(held, 0, this.searched)
        if (scan.kind === 'incomplete') {
          this.searched = held.byteLength
          return
        }
        this.searched = 0
        if (scan.kind === 'elsewhere') {
          this.held = undefined
          this.server.splice(this, this.heldBorrowed ? Buffer.from(held) : held)
          return
        }
        waiting = this.waiting = scan
      }
      const end = waiting.bodyStart + waiting.head.contentLength
      if (held.byteLength < end) return
      this.waiting = undefined
      const body = waiting.head.contentLength === 0 ? null : new Uint8Array(held.subarray(waiting.bodyStart, end))
      this.held = end === held.byteLength ? undefined : held.subarray(end)
      if (this.held === undefined) this.room = undefined
      this.start(waiting.head, body)
    }
    if (this.readPaused && (this.held === undefined || this.held.byteLength <= MAX_HELD_BYTES)) {
      this.readPaused = false
      this.socket.resume()
    }
  }

  private start(head: RequestHead, body: Uint8Array | null): void {
    this.busy = true
    this.closeAfter = head.close
    this.method = head.method
    const fields = new FieldList(head.names, head.values)
    this.starting = true
    try {
      this.server.relay({ method: head.method, target: head.target, fields, body, clientAddress: this.address }, this)
    } finally {
      this.starting = false
    }
  }

  /** The request is over. Called from the live socket's callback that ended it, or from within `start` (a Problem at once). */
  finished(): void {
    this.busy = false
    this.watcher = undefined
    this.chunked = false
    this.pendingHead = undefined
    this.sentHead = undefined
    this.headGiven = false
    if (this.closed) return
    if (this.closeAfter || this.server.stopping) {
      this.closeWhenFlushed()
      return
    }
    // Within `start`, the loop of `readNext` that called it goes on: no recursion per request answered at once.
    if (!this.starting) this.readNext()
  }

  head(head: ResponseHead, statusLine: string, framing: Framing, sent: SentHead): void {
    this.headGiven = true
    const close = this.closeAfter || this.server.stopping
    if (passesAsIs(head, statusLine, framing, close, sent)) {
      // Live's own bytes: with the body's first piece right after them in the same read, one write
      // of that read's bytes (`body`); otherwise its text, written as any head.
      this.sentHead = sent
      this.chunked = false
      this.pendingHead = `${sent.text}\r\n\r\n`
    } else {
      const out = clientHead(head, statusLine, framing, close)
      this.chunked = out.chunked
      this.pendingHead = out.text
    }
    // Written with the body's first piece when it came in the same read (one write for a small
    // response); otherwise on its own once this read is through, never held for a body that is slow to come.
    queueMicrotask(this.flushHead)
  }

  private readonly flushHead = () => {
    // This read is through: its buffer is not ours any more.
    this.sentHead = undefined
    const head = this.pendingHead
    if (head === undefined) return
    this.pendingHead = undefined
    this.writeOwn(Buffer.from(head, 'latin1'))
  }

  body(data: Buffer, from: number, to: number): boolean {
    const length = to - from
    if (length === 0) return true
    const sent = this.sentHead
    if (sent !== undefined) {
      this.sentHead = undefined
      if (sent.data === data && sent.end === from && this.pendingHead !== undefined) {
        this.pendingHead = undefined
        return this.write(data, true, sent.start, to)
      }
    }
    const prefix = (this.pendingHead ?? '') + (this.chunked ? chunkSizeLine(length) : '')
    this.pendingHead = undefined
    if (prefix.length === 0) return this.write(data, true, from, to)
    const suffix = this.chunked ? CHUNK_END_BYTES : 0
    const bytes = Buffer.allocUnsafe(prefix.length + length + suffix)
    bytes.write(prefix, 0, 'latin1')
    data.copy(bytes, prefix.length, from, to)
    if (suffix > 0) bytes.write(CHUNK_END, prefix.length + length, 'latin1')
    return this.writeOwn(bytes)
  }

  end(): void {
    this.sentHead = undefined
    const tail = (this.pendingHead ?? '') + (this.chunked ? LAST_CHUNK : '')
    this.pendingHead = undefined
    if (tail.length > 0) this.writeOwn(Buffer.from(tail, 'latin1'))
  }

  problem(problem: Problem): void {
    // After live's head (a bug past it): a second response would corrupt the stream; the client sees a cut one.
    if (this.headGiven) {
      this.broken()
      return
    }
    this.pendingHead = undefined
    this.writeOwn(Buffer.from(problemResponseText(problem, this.closeAfter || this.server.stopping, this.method !== 'HEAD')))
  }

  broken(): void {
    // The client must see the response cut, not a shorter one that looks whole.
    this.socket.terminate()
  }

  /** Writes bytes of our own (not the read's, which `write` copies if it must hold them). */
  private writeOwn(bytes: Buffer): boolean {
    return this.write(bytes, false, 0, bytes.byteLength)
  }

  /**
   * Writes `bytes[from, to)`; false when the socket did not take them all
   * (the rest is held, in order). By offsets, not a subarray: Bun's write
   * of a view made four allocations of its own per call (docs/proxy.md
   * "CPU per request").
   */
  private write(bytes: Buffer, borrowed: boolean, from: number, to: number): boolean {
    if (this.closed) return true
    if (this.unsent !== undefined) {
      this.unsent = Buffer.concat([this.unsent, bytes.subarray(from, to)])
      return false
    }
    const written = this.socket.write(bytes, from, to - from)
    if (written >= to - from) return true
    const rest = bytes.subarray(from + Math.max(0, written), to)
    this.unsent = borrowed ? Buffer.from(rest) : rest
    return false
  }

  onWritable(): void {
    if (this.spliced !== undefined) {
      this.spliced.clientWritable()
      return
    }
    const rest = this.unsent
    if (rest === undefined) return
    const written = this.socket.write(rest)
    if (written < rest.byteLength) {
      this.unsent = rest.subarray(Math.max(0, written))
      return
    }
    this.unsent = undefined
    if (this.endWhenFlushed) {
      this.socket.end()
      return
    }
    this.watcher?.clientDrained()
    if (!this.busy) this.readNext()
  }

  /** Between requests: none being answered, none partly read. */
  get idle(): boolean {
    return !this.busy && this.held === undefined && this.spliced === undefined
  }

  /** Closes once what is held is written (an idle connection at shutdown, or one whose client said close). */
  closeWhenFlushed(): void {
    this.closing = true
    if (this.unsent !== undefined) this.endWhenFlushed = true
    else this.socket.end()
  }

  onClose(): void {
    if (this.closed) return
    this.closed = true
    this.held = undefined
    this.unsent = undefined
    if (this.busy) this.watcher?.clientGone(new Error('the client closed the connection'))
    this.spliced?.clientClosed()
    this.server.closed(this)
  }
}
