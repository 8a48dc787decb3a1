import zlib from 'node:zlib'

/**
 * Decoding of a captured body for comparison (docs/proxy.md "Forwarding":
 * the proxy forwards compressed bytes untouched and the comparison decodes
 * gzip/deflate/br itself). Content codings per RFC 9110 section 8.4.1; the
 * charset of text per the Content-Type parameter (section 8.3.2).
 */

/** What decoding gave: the bytes, or why there are none. */
export type ContentDecoding =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly reason: string; readonly tooLarge: boolean }

/**
 * Undoes the codings listed in Content-Encoding, last applied first
 * (RFC 9110 section 8.4: codings are listed in the order applied). The
 * output is capped at `maxBytes` so a small compressed body cannot expand
 * without bound.
 */
export function decodeContent(
  body: Uint8Array,
  contentEncoding: readonly string[] | undefined,
  maxBytes: number,
): ContentDecoding {
  if (contentEncoding === undefined) return { ok: true, bytes: body }
  const codings = contentEncoding
    .flatMap((value) => value.split(','))
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
  let bytes = body
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i]!
    try {
      bytes = decodeOne(bytes, coding, maxBytes)
    } catch (error) {
      const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE'
      const reason = tooLarge
        ? `the body decodes to more than ${maxBytes} bytes`
        : `the ${coding} coding cannot be decoded: ${(error as Error).message}`
      return { ok: false, reason, tooLarge }
    }
  }
  return { ok: true, bytes }
}

function decodeOne(bytes: Uint8Array, coding: string, maxBytes: number): Uint8Array {
  const options = { maxOutputLength: maxBytes }
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(bytes, options)
    case 'deflate':
      // RFC 9110 section 8.4.1.2 means zlib-wrapped data; some servers send
      // raw deflate, which the zlib header check rejects.
      try {
        return zlib.inflateSync(bytes, options)
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw error
        return zlib.inflateRawSync(bytes, options)
      }
    case 'br':
      return zlib.brotliDecompressSync(bytes, options)
    case 'zstd':
      return zlib.zstdDecompressSync(bytes, options)
    default:
      throw new Error(`unsupported content coding "${coding}"`)
  }
}

/** The charset parameter of a Content-Type, lower case; utf-8 when absent. */
export function charsetOf(contentType: readonly string[] | undefined): string {
  const value = contentType?.[0]
  if (value === undefined) return 'utf-8'
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(value)
  return match === null ? 'utf-8' : match[1]!.toLowerCase()
}

const decoders = new Map<string, TextDecoder>()
const lossyUtf8 = new TextDecoder('utf-8')

/**
 * The body as text in its charset, or undefined when it is not valid text
 * in it (binary content). An unknown charset label is read as UTF-8, the
 * JSON default (RFC 8259 section 8.1). A byte order mark is dropped.
 */
export function decodeText(bytes: Uint8Array, charset: string): string | undefined {
  let decoder = decoders.get(charset)
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(charset, { fatal: true })
    } catch {
      decoder = decoders.get('utf-8') ?? new TextDecoder('utf-8', { fatal: true })
    }
    if (decoders.size < 32) decoders.set(charset, decoder)
  }
  try {
    return decoder.decode(bytes)
  } catch {
    return undefined
  }
}

/** UTF-8 text with invalid sequences replaced, for showing a binary body in a patch. */
export function lossyText(bytes: Uint8Array): string {
  return lossyUtf8.decode(bytes)
}

/**
 * Byte-wise equality, native speed. `Buffer.compare` takes the arrays as
 * they are: a Buffer view would read `.buffer`, which makes JavaScriptCore
 * allocate an ArrayBuffer for a typed array that has none yet (every body
 * from `fetch`), ~0.5 µs per call.
 */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true
  if (a.byteLength !== b.byteLength) return false
  return Buffer.compare(a, b) === 0
}
