import { parseJson } from './large-integer.ts'
import { hasDuplicateKeys } from './duplicate-keys.ts'
import { charsetOf, decodeContent, decodeText, lossyText } from './body-decoding.ts'
import type { HeaderMap } from './capture.ts'
import { MAX_COMPARE_DEPTH } from './depth-limit.ts'
import { bytesNestDeeperThan, DEPTH_SCAN_FROM_BYTES, textNestsDeeperThan } from './depth-scan.ts'
import { headerValues } from './headers.ts'

/** Marks a body that is not JSON (not text, or text that does not parse). */
export const NOT_JSON: unique symbol = Symbol('not JSON')

/** Limits for reading a body, from CaptureOptions. */
export interface BodyLimits {
  /** Bodies above this many bytes (raw or decoded) are not diffed; 0 means no limit. */
  readonly maxBodyBytes: number
  /** Hard cap on decoded output, also for redaction of bodies above maxBodyBytes. */
  readonly maxDecodedBytes: number
}

/**
 * One captured body, read lazily and at most once: decoded (content
 * coding, then charset), then parsed as JSON, each step only when a caller
 * needs it. The comparison and the redaction share the same parse, so a
 * capture's bodies are parsed once each (docs/diff.md "Redaction and what is stored").
 */
export class MessageBody {
  private _decoded: Uint8Array | null | undefined
  private _decodeTooLarge = false
  private _text: string | null | undefined
  private _json: unknown = UNREAD
  private _tooDeep: boolean | undefined
  private _lenientJson: unknown = UNREAD
  private _lenientText: string | undefined

  /**
   * @param forRedaction the body may have to be redacted: decode it up to
   *   the hard cap even past maxBodyBytes, since a secret must not survive
   *   just because the body was large. Otherwise decoding stops at
   *   maxBodyBytes, past which the body is not diffed anyway.
   */
  constructor(
    readonly raw: Uint8Array,
    readonly headers: HeaderMap,
    private readonly _limits: BodyLimits,
    private readonly _forRedaction = false,
  ) {}

  /** Above maxBodyBytes, raw or decoded: compared by bytes only, never diffed. */
  get overLimit(): boolean {
    const max = this._limits.maxBodyBytes
    if (max <= 0) return false
    if (this.raw.byteLength > max) return true
    const decoded = this.decoded()
    return this._decodeTooLarge || (decoded !== undefined && decoded.byteLength > max)
  }

  /** The bytes with content codings undone, or undefined when they cannot be. */
  decoded(): Uint8Array | undefined {
    if (this._decoded === undefined) {
      const result = decodeContent(
        this.raw,
        headerValues(this.headers, 'content-encoding'),
        this._forRedaction || this._limits.maxBodyBytes === 0
          ? this._limits.maxDecodedBytes
          : this._limits.maxBodyBytes + 1,
      )
      this._decoded = result.ok ? result.bytes : null
      this._decodeTooLarge = !result.ok && result.tooLarge
    }
    return this._decoded ?? undefined
  }

  /** Whether decoding failed (unknown coding, corrupt data, over the cap). */
  get undecodable(): boolean {
    return this.decoded() === undefined
  }

  /** The decoded body as text in its charset; undefined for binary or undecodable bodies. */
  text(): string | undefined {
    if (this._text === undefined) {
      const bytes = this.decoded()
      const charset = charsetOf(headerValues(this.headers, 'content-type'))
      this._text = bytes === undefined ? null : (decodeText(bytes, charset) ?? null)
    }
    return this._text ?? undefined
  }

  /**
   * The parsed JSON value, or NOT_JSON. Parsed once; redaction edits this
   * value in place. A large body nested deeper than MAX_COMPARE_DEPTH is
   * not parsed at all (see depth-scan.ts) and counts as NOT_JSON.
   */
  json(): unknown {
    if (this._json === UNREAD) {
      const text = this.text()
      this._json = NOT_JSON
      if (text !== undefined && text.length > 0 && !this.tooDeep) {
        try {
          this._json = parseJson(text)
        } catch {
          // Not JSON: compared as text (docs/diff.md "What is compared").
        }
      }
    }
    return this._json
  }

  /** A large body nested past MAX_COMPARE_DEPTH: never parsed, compared as text. */
  get tooDeep(): boolean {
    if (this._tooDeep === undefined) {
      const bytes = this.decoded()
      this._tooDeep = false
      if (bytes !== undefined && bytes.byteLength >= DEPTH_SCAN_FROM_BYTES) {
        const charset = charsetOf(headerValues(this.headers, 'content-type'))
        this._tooDeep = charset.startsWith('utf-16')
          ? textNestsDeeperThan(this.text() ?? '', MAX_COMPARE_DEPTH)
          : bytesNestDeeperThan(bytes, MAX_COMPARE_DEPTH)
      }
    }
    return this._tooDeep
  }

  /** Decoding stopped at the hard cap: the body was never read whole. */
  get decodeTooLarge(): boolean {
    this.decoded()
    return this._decodeTooLarge
  }

  /**
   * For redaction only, when json() is NOT_JSON: the body read as JSON
   * leniently (its bytes as decoded, else as received, as UTF-8 with
   * replacement characters), or NOT_JSON. A body meant as JSON keeps no
   * secret for one stray byte, a wrong charset label or an unknown
   * Content-Encoding. Parsed once, and never when nested too deeply.
   */
  lenientJson(): unknown {
    if (this._lenientJson === UNREAD) {
      this._lenientJson = NOT_JSON
      const text = this.looksLikeJson() ? lossyText(this.decoded() ?? this.raw) : ''
      if (text !== '' && !textNestsDeeperThan(text, MAX_COMPARE_DEPTH)) {
        try {
          this._lenientJson = parseJson(text)
          this._lenientText = text
        } catch {
          // Malformed: looksLikeJson() says what to make of it.
        }
      }
    }
    return this._lenientJson
  }

  /**
   * Whether the text json() (else lenientJson()) parsed repeats a key in
   * an object (duplicate-keys.ts): what redaction cannot see of it.
   */
  repeatsKeys(): boolean {
    const text = this.json() !== NOT_JSON ? this.text() : this.lenientJson() !== NOT_JSON ? this._lenientText : undefined
    return text !== undefined && hasDuplicateKeys(text)
  }

  /** Whether the body (decoded, else as received) starts as a JSON object or array does. */
  looksLikeJson(): boolean {
    const bytes = this.decoded() ?? this.raw
    let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
    while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x09 || bytes[at] === 0x0a || bytes[at] === 0x0d)) at++
    return bytes[at] === 0x7b || bytes[at] === 0x5b // { [
  }

  /** Replaces the parsed value (after redaction replaced the whole body). */
  setJson(value: unknown): void {
    this._json = value
  }

  /** The body as compared when it is not JSON: its text, or lossy UTF-8 of its bytes. */
  comparisonText(): string {
    return this.text() ?? lossyText(this.decoded() ?? this.raw)
  }
}

const UNREAD: unique symbol = Symbol('unread')
