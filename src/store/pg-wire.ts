/**
 * The little of PostgreSQL's wire protocol (version 3.0, "Message Flow" and
 * "Message Formats" in the PostgreSQL manual) that serving PGlite on a
 * socket needs: cutting the client's byte stream into whole messages, and
 * spotting ReadyForQuery in the backend's answer with its transaction
 * status. Pure: no sockets, no PGlite.
 */

export const PROTOCOL_3_0 = 196_608
export const SSL_REQUEST_CODE = 80_877_103
export const GSSENC_REQUEST_CODE = 80_877_104
export const CANCEL_REQUEST_CODE = 80_877_102

/** The frontend message the server acts on itself: Terminate. */
export const TERMINATE = 0x58 // 'X'

/** What ReadyForQuery says: idle, in a transaction block, in a failed one. */
export type TransactionStatus = 'I' | 'T' | 'E'

export type FrontendMessage =
  /** SSLRequest or GSSENCRequest: answered with a single 'N' (not supported). */
  | { readonly kind: 'encryption-request' }
  | { readonly kind: 'cancel-request' }
  /** The StartupMessage, passed to PGlite whole. */
  | { readonly kind: 'startup'; readonly bytes: Uint8Array }
  | { readonly kind: 'message'; readonly type: number; readonly bytes: Uint8Array }
  /** Not the protocol: the connection is to be closed. */
  | { readonly kind: 'invalid'; readonly reason: string }

/**
 * A message's declared length counts itself; PostgreSQL refuses anything
 * above 1 GiB (MaxAllocSize) as well.
 */
const MAX_MESSAGE_LENGTH = 0x3fff_ffff

/**
 * Cuts a client's byte stream, however it arrives in pieces, into whole
 * messages: first the untyped startup-phase ones (length, code), then typed
 * ones (type byte, length). Pieces are kept as they came and joined once a
 * message is complete, so a large message costs one copy, not one per piece.
 */
export class FrontendReader {
  private readonly pieces: Uint8Array[] = []
  private buffered = 0
  private started = false
  private failed = false

  /** The whole messages that `piece` completes, in order. */
  push(piece: Uint8Array): FrontendMessage[] {
    if (this.failed || piece.length === 0) return []
    this.pieces.push(piece)
    this.buffered += piece.length
    const messages: FrontendMessage[] = []
    for (;;) {
      const message = this.next()
      if (!message) return messages
      messages.push(message)
      if (message.kind === 'invalid') {
        this.failed = true
        return messages
      }
    }
  }

  private next(): FrontendMessage | undefined {
    if (!this.started) {
      if (this.buffered < 8) return undefined
      const head = this.peek(8)
      const length = readInt32(head, 0)
      const code = readInt32(head, 4)
      if (length < 8 || length > MAX_MESSAGE_LENGTH) return { kind: 'invalid', reason: `startup packet length ${length}` }
      if (this.buffered < length) return undefined
      const bytes = this.take(length)
      if (code === SSL_REQUEST_CODE || code === GSSENC_REQUEST_CODE) return { kind: 'encryption-request' }
      if (code === CANCEL_REQUEST_CODE) return { kind: 'cancel-request' }
      if (code !== PROTOCOL_3_0) return { kind: 'invalid', reason: `unsupported frontend protocol ${code >>> 16}.${code & 0xffff}` }
      this.started = true
      return { kind: 'startup', bytes }
    }
    if (this.buffered < 5) return undefined
    const head = this.peek(5)
    const length = readInt32(head, 1)
    if (length < 4 || length > MAX_MESSAGE_LENGTH) return { kind: 'invalid', reason: `message length ${length}` }
    if (this.buffered < length + 1) return undefined
    return { kind: 'message', type: head[0]!, bytes: this.take(length + 1) }
  }

  /** The first `n` buffered bytes (n ≤ buffered), without consuming them: a view when one piece holds them. */
  private peek(n: number): Uint8Array {
    const first = this.pieces[0]!
    if (first.length >= n) return first.subarray(0, n)
    const out = new Uint8Array(n)
    let filled = 0
    for (const piece of this.pieces) {
      const part = piece.subarray(0, n - filled)
      out.set(part, filled)
      filled += part.length
      if (filled === n) break
    }
    return out
  }

  /** Removes and returns the first `n` buffered bytes (n ≤ buffered). */
  private take(n: number): Uint8Array {
    const bytes = this.peek(n)
    this.buffered -= n
    for (let left = n; left > 0; ) {
      const piece = this.pieces[0]!
      if (piece.length <= left) {
        this.pieces.shift()
        left -= piece.length
      } else {
        this.pieces[0] = piece.subarray(left)
        left = 0
      }
    }
    return bytes
  }
}

/**
 * Follows the backend's messages through the pieces PGlite hands out and
 * remembers the status of the last ReadyForQuery ('Z', length 5, status).
 * It reads only the framing, so no row or error text, whatever its bytes,
 * is taken for one.
 */
export class ReadyForQueryScanner {
  /** Header bytes of the current message seen so far (up to 5). */
  private readonly header = new Uint8Array(5)
  private headerFilled = 0
  /** Body bytes of the current message still to come. */
  private bodyLeft = 0
  private inReadyForQuery = false
  private status: TransactionStatus | undefined

  feed(piece: Uint8Array): void {
    let at = 0
    while (at < piece.length) {
      if (this.bodyLeft > 0) {
        if (this.inReadyForQuery) {
          this.status = statusOf(piece[at]!)
          this.inReadyForQuery = false
        }
        const skip = Math.min(this.bodyLeft, piece.length - at)
        at += skip
        this.bodyLeft -= skip
        continue
      }
      const part = Math.min(5 - this.headerFilled, piece.length - at)
      this.header.set(piece.subarray(at, at + part), this.headerFilled)
      this.headerFilled += part
      at += part
      if (this.headerFilled < 5) return
      this.headerFilled = 0
      this.bodyLeft = Math.max(0, readInt32(this.header, 1) - 4)
      this.inReadyForQuery = this.header[0] === 0x5a && this.bodyLeft === 1 // 'Z'
    }
  }

  /** The status of the last ReadyForQuery fed since the previous call, if any. */
  takeStatus(): TransactionStatus | undefined {
    const status = this.status
    this.status = undefined
    return status
  }
}

function statusOf(byte: number): TransactionStatus {
  return byte === 0x54 ? 'T' : byte === 0x45 ? 'E' : 'I'
}

/** A FATAL ErrorResponse, as a server sends before closing a connection it refuses. */
export function fatalError(sqlState: string, message: string): Uint8Array {
  return frontendMessage('E', new TextEncoder().encode(`SFATAL\0VFATAL\0C${sqlState}\0M${message}\0\0`))
}

/** A typed message of `type` with `body`, its length field filled in (either direction has this shape). */
export function frontendMessage(type: string, body: Uint8Array = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(5 + body.length)
  out[0] = type.charCodeAt(0)
  writeInt32(out, 1, 4 + body.length)
  out.set(body, 5)
  return out
}

function readInt32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0
}

function writeInt32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24
  bytes[at + 1] = (value >>> 16) & 0xff
  bytes[at + 2] = (value >>> 8) & 0xff
  bytes[at + 3] = value & 0xff
}
