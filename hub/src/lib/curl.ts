import { base64ToBytes, bytesToBase64, bytesToText } from './base64.ts'
import type { HeaderMap } from './types.ts'

/**
 * A curl command that replays a captured request against a base URL
 * (usually the gate's live or shadow URL), for a POSIX shell.
 */

export interface ReplayRequest {
  readonly method: string
  readonly path: string
  readonly raw_query?: string
  readonly headers: HeaderMap
  /** Base64. */
  readonly body: string
}

/**
 * Not replayed: hop-by-hop headers (RFC 9110 §7.6.1), `Host` and
 * `Content-Length` (curl derives them from the URL and body), and the
 * forwarding headers the proxy added itself.
 */
const SKIPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-svc-mode',
])

/** Quotes one word for a POSIX shell: `it's` → `'it'\''s'`. */
export function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word
  return `'${word.replace(/'/g, `'\\''`)}'`
}

/**
 * `base` (may carry a path prefix) joined with the captured path and query.
 * Bytes a URL cannot hold as they are (spaces, non-ASCII) are
 * percent-encoded; existing escapes are kept.
 */
export function replayUrl(base: string, path: string, rawQuery?: string): string {
  const trimmed = base.replace(/\/+$/, '')
  const p = path.startsWith('/') ? path : `/${path}`
  return `${trimmed}${escapeUrl(p)}${rawQuery ? `?${escapeUrl(rawQuery)}` : ''}`
}

function escapeUrl(text: string): string {
  // `#` too: curl would take what follows for a fragment and not send it.
  return text.replace(/[^\x21-\x7e]|["#<>\\^`{|}]/gu, (c) => encodeURIComponent(c))
}

/**
 * The command. A text body goes inline with `--data-raw`; a binary one is
 * piped in from base64 so the bytes survive copy and paste. Redacted header
 * values (`[REDACTED]`) are kept as they are: the user fills them in.
 */
export function curlCommand(req: ReplayRequest, baseUrl: string): string {
  // -g: no URL globbing, so [ ] { } in a captured path are sent as they
  // are; --path-as-is: `..` and `.` segments too, as the client sent them.
  const parts: string[] = ['curl', '-sS', '-i', '-g', '--path-as-is']
  const method = req.method.toUpperCase()
  let bytes: Uint8Array
  try {
    bytes = base64ToBytes(req.body)
  } catch {
    bytes = new Uint8Array()
  }
  if (method === 'HEAD') parts.push('--head')
  // With a body curl would send POST: a GET with one says so.
  else if (method !== 'GET' || bytes.length > 0) parts.push('-X', shellQuote(method))
  parts.push(shellQuote(replayUrl(baseUrl, req.path, req.raw_query)))

  const names = Object.keys(req.headers).sort((a, b) => a.localeCompare(b))
  for (const name of names) {
    if (SKIPPED.has(name.toLowerCase())) continue
    // `Name:` with nothing after it removes a header in curl; `Name;` sends it empty.
    for (const value of req.headers[name] ?? []) parts.push('-H', shellQuote(value === '' ? `${name};` : `${name}: ${value}`))
  }

  if (bytes.length === 0) return parts.join(' ')
  const text = bytesToText(bytes)
  if (text !== undefined) {
    parts.push('--data-raw', shellQuote(text))
    return parts.join(' ')
  }
  parts.push('--data-binary', '@-')
  return `printf %s ${shellQuote(bytesToBase64(bytes))} | base64 -d | ${parts.join(' ')}`
}
