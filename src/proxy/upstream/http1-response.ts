/**
 * An HTTP/1.1 response read incrementally from the bytes of a connection
 * (RFC 9112), for the shadow's client (`http1-client.ts`): no I/O here.
 * Feed it what the socket delivers, in pieces cut anywhere; it keeps the
 * head, the body (de-chunked, otherwise the bytes as sent: a gzip body
 * stays gzip, as fetch with `decompress: false` gives it) up to a bound,
 * and says whether the connection can carry another exchange.
 *
 * Framing, as RFC 9112 section 6.3 orders it: no body for a HEAD request
 * or a 1xx/204/304 status; `Transfer-Encoding` ending in chunked, then
 * chunked; any other `Transfer-Encoding`, then until the connection closes;
 * then `Content-Length`; else until the connection closes. Interim 1xx
 * responses (100 Continue, 103 Early Hints) are skipped. The head itself
 * is read by `response-head.ts`.
 */
import {
  framingOf,
  type Framing,
  headEnd,
  keepAliveHintMs,
  keepsAlive,
  MAX_HEAD_BYTES,
  parseHead,
  relayedStatusProblem,
  statusProblem,
  ResponseProtocolError,
  ResponseTooLargeError,
  type ResponseHead,
} from './response-head.ts'

/**
 * What a `push()` or `end()` left the reader in: `too-large` is a body past
 * the bound, `over-budget` one whose bytes `reserve` refused.
 */
export type ReadState = 'more' | 'done' | 'too-large' | 'over-budget'

/**
 * Takes a response as it is read, for a client that passes it on instead
 * of keeping it (live's relay, `relay-live.ts`): the final head when it is
 * in, then each piece of the body as decoded (de-chunked). With a relay
 * the reader keeps no body and no bound applies: the relay keeps what it
 * needs.
 */
export interface ResponseRelay {
  /**
   * The final head (interim 1xx heads are not relayed), with the text of
   * its status line and the head as it was sent; one whose status a client
   * cannot be given was refused before (`relayedStatusProblem`).
   */
  head(head: ResponseHead, statusLine: string, framing: Framing, sent: SentHead): void
  /** Body bytes `data[from, to)`: a view of the socket's buffer, valid during the call only. */
  body(data: Buffer, from: number, to: number): void
  /** Set by the connection the response comes on: the client's backpressure pauses its reading. */
  reading?: ReadControl
}

/** A final head as it was sent: `data[start, end)`, its empty line included (a view of the socket's buffer, valid during the call only). */
export interface SentHead {
  readonly data: Buffer
  readonly start: number
  readonly end: number
  /** Its text up to the end of its last line (the line end and the empty line left out). */
  readonly text: string
}

/** Pauses and resumes the reading of a connection. */
export interface ReadControl {
  pause(): void
  resume(): void
}

/** A chunk-size line longer than this is refused (hex digits and extensions). */
const MAX_CHUNK_LINE_BYTES = 4096
const CRLF = Buffer.from('\r\n')
const LF = 10
const CR = 13
const EMPTY = new Uint8Array(0)
/** The first buffer kept for an unfinished unit; it doubles as the unit grows. */
const MIN_PENDING_BYTES = 256
/** Bytes at the end of what was searched that the next search looks at again: `\n\r\n` may straddle two reads. */
const TERMINATOR_OVERLAP = 3
/** A chunk-size line as fetch takes it: hex digits, then extensions or nothing (no whitespace). */
const CHUNK_SIZE_LINE = /^([0-9a-fA-F]{1,15})(?:;.*)?$/

const enum Phase {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  Done,
}

export class ResponseReader {
  head: ResponseHead | undefined
  /** Whether the connection may carry another exchange once this one is done. */
  reusable = false
  /** Whether any byte of a response came in (a reused connection that closes before is stale). */
  received = false
  /** Whether the body turned out larger than the bound (then it is not kept, and the connection not reused). */
  tooLarge = false
  /** Whether `reserve` refused bytes of the body (then it is not kept, and the connection not reused). */
  overBudget = false
  /** How long the server keeps the connection idle, by its `Keep-Alive: timeout=` (ms); undefined when it did not say. */
  keepAliveMs: number | undefined
  /**
   * Bytes looked at or copied while waiting for the end of a head, a
   * chunk-size line or a trailer line: at most a few times the bytes
   * received, however they are split (a hostile upstream that sends its
   * head a byte at a time must not cost quadratic work).
   */
  scanned = 0
  private phase = Phase.Head
  /** Bytes of an unfinished head, chunk-size line, trailer line or chunk terminator, in `pending[0, pendingLength)`. */
  private pending: Buffer | undefined
  private pendingLength = 0
  /** How far into `pending` the search for the unit's end has looked (less a few bytes a terminator may straddle). */
  private searched = 0
  /** Where the current `push()`'s first search may start (`searched`, for the pending bytes); 0 after its first step. */
  private resume = 0
  private remaining = 0
  private parts: Uint8Array[] = []
  private total = 0
  /** Bytes of the heads read so far (interim 1xx ones included), then of the trailer section. */
  private headBytes = 0
  private keepAlive = false

  /**
   * @param method the request's method (a HEAD response has no body)
   * @param maxBodyBytes the bound of the body kept; 0 means unlimited
   * @param reserve asked before each piece of the body is kept; `false` stops keeping it (`over-budget`)
   */
  constructor(
    private readonly method: string,
    private readonly maxBodyBytes: number,
    private readonly reserve?: (bytes: number) => boolean,
    readonly relay?: ResponseRelay,
  ) {}

  /** The body as read; only once `push()` or `end()` said `done`. */
  get body(): Uint8Array {
    if (this.parts.length === 0) return EMPTY
    if (this.parts.length === 1) return this.parts[0]!
    const out = new Uint8Array(this.total)
    let offset = 0
    for (const part of this.parts) {
      out.set(part, offset)
      offset += part.byteLength
    }
    this.parts = [out]
    return out
  }

  /**
   * Takes the next bytes of the connection. The bytes are copied where
   * kept: the caller may reuse its buffer. Throws ResponseProtocolError
   * or ResponseTooLargeError.
   */
  push(chunk: Buffer): ReadState {
    if (chunk.byteLength === 0) return this.state()
    this.received = true
    if (this.phase === Phase.Done) {
      // Bytes after the response: the connection is out of step.
      this.reusable = false
      return 'done'
    }
    const inPending = this.pendingLength > 0
    const data = inPending ? this.append(chunk) : chunk
    this.resume = inPending ? this.searched : 0
    let offset = 0
    while (offset < data.byteLength && !this.isDone() && !this.stopped()) {
      const next = this.step(data, offset)
      this.resume = 0
      if (next < 0) {
        // Incomplete: keep the unread rest for the next push.
        this.keepPending(data, -next - 1, inPending)
        this.checkPending()
        return 'more'
      }
      offset = next
    }
    this.pendingLength = 0
    if (this.isDone() && offset < data.byteLength) this.reusable = false
    return this.state()
  }

  /** The connection closed: ends a body read until close, else the response was cut short. */
  end(): ReadState {
    if (this.phase === Phase.UntilClose) {
      this.phase = Phase.Done
      this.reusable = false
      return this.state()
    }
    if (this.phase === Phase.Done || this.stopped()) return this.state()
    throw Object.assign(new Error('upstream closed the connection before the response was complete'), {
      code: 'ECONNRESET',
    })
  }

  /** A method, not a field test: `step()` moves the phase where type narrowing cannot see it. */
  private isDone(): boolean {
    return this.phase === Phase.Done
  }

  /** The body is no longer kept: nothing more is read. */
  private stopped(): boolean {
    return this.tooLarge || this.overBudget
  }

  private state(): ReadState {
    if (this.tooLarge) return 'too-large'
    if (this.overBudget) return 'over-budget'
    return this.phase === Phase.Done ? 'done' : 'more'
  }

  /** Reads from `offset`; returns the next offset, or `-(offset + 1)` when more bytes are needed. */
  private step(data: Buffer, offset: number): number {
    switch (this.phase) {
      case Phase.Head:
        return this.readHead(data, offset)
      case Phase.Length:
      case Phase.ChunkData: {
        const take = Math.min(this.remaining, data.byteLength - offset)
        this.keep(data, offset, offset + take)
        this.remaining -= take
        if (this.remaining === 0) this.phase = this.phase === Phase.Length ? this.finish() : Phase.ChunkDataEnd
        return offset + take
      }
      case Phase.ChunkDataEnd: {
        if (data.byteLength - offset < 2) return -(offset + 1)
        if (data[offset] !== CR || data[offset + 1] !== LF) throw new ResponseProtocolError('chunk not followed by CRLF')
        this.phase = Phase.ChunkSize
        return offset + 2
      }
      case Phase.ChunkSize:
        return this.readChunkSize(data, offset)
      case Phase.Trailers:
        return this.readTrailers(data, offset)
      case Phase.UntilClose:
        this.keep(data, offset, data.byteLength)
        return data.byteLength
      default:
        return data.byteLength
    }
  }

  /** Where the search for the end of the unit starting at `offset` begins: past what an earlier push searched. */
  private searchFrom(data: Buffer, offset: number): number {
    const from = Math.max(offset, this.resume)
    this.scanned += data.byteLength - from
    return from
  }

  private readHead(data: Buffer, offset: number): number {
    const found = headEnd(data, offset, this.searchFrom(data, offset))
    if (found === undefined) {
      if (this.headBytes + data.byteLength - offset > MAX_HEAD_BYTES) throw headTooLarge()
      return -(offset + 1)
    }
    const [end, next] = found
    this.headBytes += next - offset
    if (this.headBytes > MAX_HEAD_BYTES) throw headTooLarge()
    const text = data.toString('latin1', offset, end)
    const head = parseHead(text, this.relay === undefined ? statusProblem : relayedStatusProblem)
    if (head.status < 200) {
      if (head.status === 101) throw new ResponseProtocolError('unexpected 101 Switching Protocols')
      return next // interim response: the real one follows
    }
    this.head = head
    this.keepAlive = keepsAlive(text, head.fields)
    this.keepAliveMs = keepAliveHintMs(head.fields)
    if (head.fields['transfer-encoding'] !== undefined) {
      // RFC 9112 section 6.1: a message with both "ought to be handled as an
      // error"; a sender that writes both frames its body two ways, the shape
      // of request smuggling. The shadow's answer is refused.
      if (head.fields['content-length'] !== undefined) throw new ResponseProtocolError('Content-Length with Transfer-Encoding')
      // Transfer-Encoding in HTTP/1.0: framed by the coding, the connection closed after.
      if (text.startsWith('HTTP/1.0')) this.keepAlive = false
    }
    const framing = framingOf(this.method, head)
    if (this.relay !== undefined) this.relay.head(head, text.slice(0, statusLineEnd(text)), framing, { data, start: offset, end: next, text })
    if (framing.kind === 'none') {
      this.phase = this.finish()
    } else if (framing.kind === 'length') {
      if (this.exceeds(framing.length)) this.tooLarge = true
      else if (framing.length === 0) this.phase = this.finish()
      else {
        this.remaining = framing.length
        this.phase = Phase.Length
      }
    } else if (framing.kind === 'chunked') {
      this.phase = Phase.ChunkSize
    } else {
      this.phase = Phase.UntilClose
    }
    return next
  }

  private readChunkSize(data: Buffer, offset: number): number {
    const end = data.indexOf(CRLF, this.searchFrom(data, offset))
    if (end === -1) return -(offset + 1)
    if (end - offset > MAX_CHUNK_LINE_BYTES) throw new ResponseProtocolError('chunk size line too long')
    const line = data.toString('latin1', offset, end)
    const match = CHUNK_SIZE_LINE.exec(line)
    if (match === null) throw new ResponseProtocolError(`bad chunk size line ${JSON.stringify(line.slice(0, 40))}`)
    const size = parseInt(match[1]!, 16)
    if (size === 0) {
      this.phase = Phase.Trailers
      this.headBytes = 0
    } else {
      if (this.exceeds(this.total + size)) this.tooLarge = true
      this.remaining = size
      this.phase = Phase.ChunkData
    }
    return end + 2
  }

  /** Trailer fields after the last chunk, up to the empty line; read and dropped (fetch drops them too). */
  private readTrailers(data: Buffer, offset: number): number {
    const end = data.indexOf(CRLF, this.searchFrom(data, offset))
    if (end === -1) return -(offset + 1)
    this.headBytes += end + 2 - offset
    if (this.headBytes > MAX_HEAD_BYTES) throw trailersTooLarge()
    if (end === offset) this.phase = this.finish()
    return end + 2
  }

  private keep(data: Buffer, from: number, to: number): void {
    if (to <= from) return
    if (this.relay !== undefined) {
      this.relay.body(data, from, to)
      return
    }
    this.total += to - from
    if (this.exceeds(this.total)) {
      this.tooLarge = true
      this.parts = []
      return
    }
    if (this.reserve !== undefined && !this.reserve(to - from)) {
      this.overBudget = true
      this.parts = []
      return
    }
    // A copy: the socket's buffer is not ours to keep (copied straight, with no view made first).
    const part = new Uint8Array(to - from)
    data.copy(part, 0, from, to)
    this.parts.push(part)
  }

  private finish(): Phase {
    this.reusable = this.keepAlive
    return Phase.Done
  }

  private exceeds(length: number): boolean {
    return this.maxBodyBytes !== 0 && length > this.maxBodyBytes
  }

  /** `pending` with `chunk` after its bytes, grown by doubling so that a unit sent a byte at a time is copied a bounded number of times. */
  private append(chunk: Buffer): Buffer {
    const length = this.pendingLength + chunk.byteLength
    let pending = this.pending!
    if (length > pending.byteLength) {
      pending = Buffer.allocUnsafe(Math.max(length, pending.byteLength * 2))
      this.pending!.copy(pending, 0, 0, this.pendingLength)
      this.scanned += this.pendingLength
      this.pending = pending
    }
    chunk.copy(pending, this.pendingLength)
    this.scanned += chunk.byteLength
    this.pendingLength = length
    return pending.subarray(0, length)
  }

  /**
   * Keeps `data[from..]`, the start of an unfinished unit, searched to its
   * end but for the bytes a terminator may straddle. `inPending`: `data`
   * is `pending` itself.
   */
  private keepPending(data: Buffer, from: number, inPending: boolean): void {
    const rest = data.byteLength - from
    if (inPending) {
      // Already in `pending`: moved to its start (each byte moves at most once per unit it belongs to).
      if (from > 0) {
        this.pending!.copy(this.pending!, 0, from, data.byteLength)
        this.scanned += rest
      }
    } else {
      if (this.pending === undefined || this.pending.byteLength < rest) this.pending = Buffer.allocUnsafe(Math.max(rest, MIN_PENDING_BYTES))
      data.copy(this.pending, 0, from)
      this.scanned += rest
    }
    this.pendingLength = rest
    this.searched = Math.max(0, rest - TERMINATOR_OVERLAP)
  }

  /** The same bounds as on bytes that came in one read, so that how TCP splits them changes nothing. */
  private checkPending(): void {
    const length = this.pendingLength
    if (this.phase === Phase.Head && this.headBytes + length > MAX_HEAD_BYTES) throw headTooLarge()
    if (this.phase === Phase.ChunkSize && length > MAX_CHUNK_LINE_BYTES) {
      throw new ResponseProtocolError('chunk size line too long')
    }
    if (this.phase === Phase.Trailers && this.headBytes + length > MAX_HEAD_BYTES) throw trailersTooLarge()
  }
}

/** Where a head's first line ends (CRLF or a bare LF, as `parseHead` reads it). */
function statusLineEnd(text: string): number {
  const end = text.indexOf('\n')
  if (end === -1) return text.length
  return end > 0 && text.charCodeAt(end - 1) === CR ? end - 1 : end
}

function headTooLarge(): ResponseTooLargeError {
  return new ResponseTooLargeError(`head over ${MAX_HEAD_BYTES} bytes`)
}

function trailersTooLarge(): ResponseTooLargeError {
  return new ResponseTooLargeError(`trailer section over ${MAX_HEAD_BYTES} bytes`)
}
