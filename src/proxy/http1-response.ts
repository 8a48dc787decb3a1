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
 * responses (100 Continue, 103 Early Hints) are skipped.
 */

/** The bytes do not make an HTTP/1.1 response: the connection cannot be trusted further. */
export class ResponseProtocolError extends Error {
  readonly code = 'ECONNRESET'
  constructor(message: string) {
    super(`invalid response from upstream: ${message}`)
  }
}

/** The response's fields by lower-case name, repeated ones joined with ", " (as `Headers` does); Set-Cookie apart. */
export interface ResponseFields {
  readonly fields: Record<string, string>
  readonly setCookies: readonly string[]
}

export interface ResponseHead extends ResponseFields {
  readonly status: number
}

/** What a `push()` or `end()` left the reader in. */
export type ReadState = 'more' | 'done' | 'too-large'

/**
 * A head (or a trailer section) longer than this is refused rather than
 * buffered, however the bytes are split (Bun's and Go's limits are of
 * this order).
 */
const MAX_HEAD_BYTES = 64 * 1024
/** A chunk-size line longer than this is refused (hex digits and extensions). */
const MAX_CHUNK_LINE_BYTES = 4096
const CRLF = Buffer.from('\r\n')
const LF = 10
const CR = 13
const EMPTY = new Uint8Array(0)
/** A chunk-size line as fetch takes it: hex digits, then extensions or nothing (no whitespace). */
const CHUNK_SIZE_LINE = /^([0-9a-fA-F]{1,15})(?:;.*)?$/
/** Field values: visible bytes, spaces and tabs; a CR, LF or other control byte is refused, as fetch refuses it. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

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
  private phase = Phase.Head
  /** Bytes of an unfinished head, chunk-size line or chunk terminator. */
  private carry: Buffer | undefined
  private remaining = 0
  /** Whether the body turned out larger than the bound (then it is not kept, and the connection not reused). */
  tooLarge = false
  private parts: Uint8Array[] = []
  private total = 0
  private trailerBytes = 0
  private keepAlive = false

  /**
   * @param method the request's method (a HEAD response has no body)
   * @param maxBodyBytes the bound of the body kept; 0 means unlimited
   */
  constructor(
    private readonly method: string,
    private readonly maxBodyBytes: number,
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
   * kept: the caller may reuse its buffer. Throws ResponseProtocolError.
   */
  push(chunk: Buffer): ReadState {
    if (chunk.byteLength === 0) return this.state()
    this.received = true
    if (this.phase === Phase.Done) {
      // Bytes after the response: the connection is out of step.
      this.reusable = false
      return 'done'
    }
    const data = this.carry === undefined ? chunk : Buffer.concat([this.carry, chunk])
    this.carry = undefined
    let offset = 0
    while (offset < data.byteLength && !this.isDone() && !this.tooLarge) {
      offset = this.step(data, offset)
      if (offset < 0) {
        // Incomplete: keep the unread rest for the next push.
        this.carry = Buffer.from(data.subarray(-offset - 1))
        this.checkCarry()
        return 'more'
      }
    }
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
    if (this.phase === Phase.Done || this.tooLarge) return this.state()
    throw Object.assign(new Error('upstream closed the connection before the response was complete'), {
      code: 'ECONNRESET',
    })
  }

  /** A method, not a field test: `step()` moves the phase where type narrowing cannot see it. */
  private isDone(): boolean {
    return this.phase === Phase.Done
  }

  private state(): ReadState {
    if (this.tooLarge) return 'too-large'
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
        if (data[offset] !== 13 || data[offset + 1] !== 10) throw new ResponseProtocolError('chunk not followed by CRLF')
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

  private readHead(data: Buffer, offset: number): number {
    const found = headEnd(data, offset)
    if (found === undefined) {
      if (data.byteLength - offset > MAX_HEAD_BYTES) throw new ResponseProtocolError('response head too large')
      return -(offset + 1)
    }
    const [end, next] = found
    if (end - offset > MAX_HEAD_BYTES) throw new ResponseProtocolError('response head too large')
    const text = data.toString('latin1', offset, end)
    const head = parseHead(text)
    if (head.status >= 100 && head.status < 200) {
      if (head.status === 101) throw new ResponseProtocolError('unexpected 101 Switching Protocols')
      return next // interim response: the real one follows
    }
    this.head = head
    this.keepAlive = keepsAlive(text, head.fields)
    // Transfer-Encoding with Content-Length, or in HTTP/1.0: framed by the
    // coding, but the connection is closed after (RFC 9112 section 6.1).
    if (head.fields['transfer-encoding'] !== undefined && (head.fields['content-length'] !== undefined || text.startsWith('HTTP/1.0'))) {
      this.keepAlive = false
    }
    const framing = framingOf(this.method, head)
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
    const end = data.indexOf(CRLF, offset)
    if (end === -1) return -(offset + 1)
    if (end - offset > MAX_CHUNK_LINE_BYTES) throw new ResponseProtocolError('chunk size line too long')
    const line = data.toString('latin1', offset, end)
    const match = CHUNK_SIZE_LINE.exec(line)
    if (match === null) throw new ResponseProtocolError(`bad chunk size line ${JSON.stringify(line.slice(0, 40))}`)
    const size = parseInt(match[1]!, 16)
    if (size === 0) {
      this.phase = Phase.Trailers
    } else {
      if (this.exceeds(this.total + size)) this.tooLarge = true
      this.remaining = size
      this.phase = Phase.ChunkData
    }
    return end + 2
  }

  /** Trailer fields after the last chunk, up to the empty line; read and dropped (fetch drops them too). */
  private readTrailers(data: Buffer, offset: number): number {
    const end = data.indexOf(CRLF, offset)
    if (end === -1) return -(offset + 1)
    this.trailerBytes += end + 2 - offset
    if (this.trailerBytes > MAX_HEAD_BYTES) throw new ResponseProtocolError('trailer section too large')
    if (end === offset) this.phase = this.finish()
    return end + 2
  }

  private keep(data: Buffer, from: number, to: number): void {
    if (to <= from) return
    this.total += to - from
    if (this.exceeds(this.total)) {
      this.tooLarge = true
      this.parts = []
      return
    }
    // A copy: the socket's buffer is not ours to keep.
    this.parts.push(new Uint8Array(data.subarray(from, to)))
  }

  private finish(): Phase {
    this.reusable = this.keepAlive
    return Phase.Done
  }

  private exceeds(length: number): boolean {
    return this.maxBodyBytes !== 0 && length > this.maxBodyBytes
  }

  /** The same bounds as on bytes that came in one read, so that how TCP splits them changes nothing. */
  private checkCarry(): void {
    const length = this.carry!.byteLength
    if (this.phase === Phase.Head && length > MAX_HEAD_BYTES) throw new ResponseProtocolError('response head too large')
    if (this.phase === Phase.ChunkSize && length > MAX_CHUNK_LINE_BYTES) {
      throw new ResponseProtocolError('chunk size line too long')
    }
    if (this.phase === Phase.Trailers && this.trailerBytes + length > MAX_HEAD_BYTES) {
      throw new ResponseProtocolError('trailer section too large')
    }
  }
}

/**
 * Where a head ends: the offset of its last line's end and of the first
 * byte after its empty line. Lines may end with a bare LF (RFC 9112
 * section 2.2 allows it; fetch accepts it), not with a bare CR.
 */
function headEnd(data: Buffer, offset: number): [end: number, next: number] | undefined {
  let lf = data.indexOf(LF, offset)
  while (lf !== -1) {
    const end = lf > offset && data[lf - 1] === CR ? lf - 1 : lf
    if (data[lf + 1] === LF) return [end, lf + 2]
    if (data[lf + 1] === CR && data[lf + 2] === LF) return [end, lf + 3]
    if (lf + 2 >= data.byteLength) return undefined
    lf = data.indexOf(LF, lf + 1)
  }
  return undefined
}

/** Status line and fields of a head (without its final empty line; lines end with CRLF or LF). */
export function parseHead(text: string): ResponseHead {
  const lines = text.split(/\r?\n/)
  const match = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0]!)
  if (match === null) throw new ResponseProtocolError(`bad status line ${JSON.stringify(lines[0]!.slice(0, 80))}`)
  // No prototype: a field named `constructor` or `__proto__` is a field like any other.
  const fields: Record<string, string> = Object.create(null)
  const setCookies: string[] = []
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line.indexOf(':')
    if (colon <= 0) throw new ResponseProtocolError(`bad header line ${JSON.stringify(line.slice(0, 80))}`)
    const name = line.slice(0, colon).toLowerCase()
    if (!/^[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(name)) throw new ResponseProtocolError(`bad header name ${JSON.stringify(name)}`)
    const value = line.slice(colon + 1).trim()
    if (!FIELD_VALUE.test(value)) throw new ResponseProtocolError(`bad value of header ${JSON.stringify(name)}`)
    // A list in one Content-Length field is refused, as fetch refuses it;
    // repeated fields that agree are taken (framingOf).
    if (name === 'content-length' && value.includes(',')) throw new ResponseProtocolError(`bad Content-Length ${JSON.stringify(value)}`)
    if (name === 'set-cookie') setCookies.push(value)
    else fields[name] = fields[name] === undefined ? value : `${fields[name]}, ${value}`
  }
  return { status: Number(match[1]), fields, setCookies }
}

type Framing =
  | { readonly kind: 'none' }
  | { readonly kind: 'length'; readonly length: number }
  | { readonly kind: 'chunked' }
  | { readonly kind: 'close' }

function framingOf(method: string, head: ResponseHead): Framing {
  const { status, fields } = head
  if (method === 'HEAD' || status === 204 || status === 304) return { kind: 'none' }
  const coding = fields['transfer-encoding']
  if (coding !== undefined) {
    const codings = coding.split(',')
    return codings[codings.length - 1]!.trim().toLowerCase() === 'chunked' ? { kind: 'chunked' } : { kind: 'close' }
  }
  const length = fields['content-length']
  if (length !== undefined) {
    // Repeated fields (joined with ", ") must all agree (RFC 9110 section 8.6).
    const values = length.split(',').map((v) => v.trim())
    if (!values.every((v) => /^\d{1,15}$/.test(v) && Number(v) === Number(values[0]))) {
      throw new ResponseProtocolError(`bad Content-Length ${JSON.stringify(length)}`)
    }
    return { kind: 'length', length: Number(values[0]) }
  }
  return { kind: 'close' }
}

/** HTTP/1.1 keeps the connection unless told `close`; HTTP/1.0 only when told `keep-alive`. */
function keepsAlive(head: string, fields: Record<string, string>): boolean {
  const tokens = (fields['connection'] ?? '').toLowerCase().split(',').map((t) => t.trim())
  if (tokens.includes('close')) return false
  return head.startsWith('HTTP/1.1') || tokens.includes('keep-alive')
}
