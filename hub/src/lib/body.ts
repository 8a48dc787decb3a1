import { base64ToBytes, bytesToText } from './base64.ts'
import type { HeaderMap } from './types.ts'
import { parseJson } from '../../../src/diff/large-integer.ts'

/**
 * A captured body, decoded for display. The diff compares parsed JSON when both
 * bodies parse as JSON, otherwise the raw text (docs/diff.md "What is
 * compared"), so `json` is only the first step; `diffDocuments` makes the final
 * call.
 */
export type DecodedBody =
  | { readonly kind: 'empty' }
  | { readonly kind: 'json'; readonly value: unknown; readonly text: string; readonly size: number }
  | { readonly kind: 'text'; readonly text: string; readonly size: number }
  /** `encoding`: a Content-Encoding the browser cannot undo (br, zstd): these are its compressed bytes. */
  | { readonly kind: 'binary'; readonly bytes: Uint8Array; readonly encoding?: string }
  | { readonly kind: 'invalid'; readonly message: string }

/** Classifies decoded bytes: empty, JSON, UTF-8 text or binary. */
export function classifyBytes(bytes: Uint8Array): DecodedBody {
  if (bytes.length === 0) return { kind: 'empty' }
  const text = bytesToText(bytes)
  if (text === undefined) return { kind: 'binary', bytes }
  const trimmed = text.trimStart()
  const size = bytes.length
  if (trimmed !== '' && '{["-0123456789tfn'.includes(trimmed[0] as string)) {
    try {
      // Integers past 2^53 keep their digits, as the API compared them (docs/diff.md).
      return { kind: 'json', value: parseJson(text), text, size }
    } catch {
      // Not JSON after all: shown as text.
    }
  }
  return { kind: 'text', text, size }
}

/**
 * Decodes a base64 body, undoing a gzip or deflate Content-Encoding when the
 * browser can (the stored bytes are what the service sent, compressed or not;
 * docs/proxy.md "Forwarding"). Chromium's DecompressionStream has no Brotli
 * (nor zstd), and a decoder in the page would weigh more than the page: such a
 * body is shown as its compressed bytes, and says so. The API's diff is
 * computed on the decoded body all the same.
 */
export async function decodeBody(base64: string, headers: HeaderMap): Promise<DecodedBody> {
  let bytes: Uint8Array
  try {
    bytes = base64ToBytes(base64)
  } catch {
    return { kind: 'invalid', message: 'the body is not valid base64' }
  }
  const encoding = headerValue(headers, 'Content-Encoding')?.trim().toLowerCase()
  if (bytes.length > 0 && (encoding === 'gzip' || encoding === 'deflate')) {
    const inflated = await decompress(bytes, encoding)
    if (inflated) bytes = inflated
  } else if (bytes.length > 0 && encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    return { kind: 'binary', bytes, encoding }
  }
  return classifyBytes(bytes)
}

async function decompress(bytes: Uint8Array, format: 'gzip' | 'deflate'): Promise<Uint8Array | undefined> {
  if (typeof DecompressionStream === 'undefined') return undefined
  try {
    const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream(format))
    return new Uint8Array(await new Response(stream).arrayBuffer())
  } catch {
    return undefined
  }
}

/** First value of a header, looked up case-insensitively (RFC 9110 §5.1). */
export function headerValue(headers: HeaderMap, name: string): string | undefined {
  const wanted = name.toLowerCase()
  for (const [key, values] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return values[0]
  }
  return undefined
}

/** Go's CanonicalMIMEHeaderKey: `content-type` → `Content-Type`, the form used in diff pointers. */
export function canonicalHeaderName(name: string): string {
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) return name
  return name
    .toLowerCase()
    .replace(/(^|-)([a-z])/g, (_m, sep: string, c: string) => sep + c.toUpperCase())
}

/** The body as the diff saw it: JSON when both sides are JSON, else text. */
export type DiffBody = { readonly json: true; readonly value: unknown } | { readonly json: false; readonly text: string }

export function diffBodies(live: DecodedBody, shadow: DecodedBody): [DiffBody, DiffBody] {
  if (live.kind === 'json' && shadow.kind === 'json') {
    return [
      { json: true, value: live.value },
      { json: true, value: shadow.value },
    ]
  }
  return [
    { json: false, text: rawText(live) },
    { json: false, text: rawText(shadow) },
  ]
}

function rawText(body: DecodedBody): string {
  switch (body.kind) {
    case 'binary':
      // Not '': the differences table showed a 4 KB image as an empty live body.
      return `(binary, ${body.bytes.length} bytes)`
    case 'empty':
    case 'invalid':
      return ''
    case 'json':
    case 'text':
      return body.text
  }
}
