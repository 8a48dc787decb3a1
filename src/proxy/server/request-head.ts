/**
 * A request head as the raw server reads it (RFC 9112), and whether the
 * raw server serves the request itself or hands its connection to
 * Bun.serve (`splice.ts`; docs/proxy.md "The raw server"). It takes the
 * plain case only: an HTTP/1.1 request in origin form whose target needs
 * no normalising, fields of visible ASCII, at most one Host and one
 * Content-Length, a body of announced length within RAW_MAX_BODY_BYTES.
 * Anything else (chunked bodies, Expect, Upgrade, HTTP/1.0, obsolete line
 * folding, bare LF line ends, a target with dot segments, a head over
 * RAW_MAX_HEAD_BYTES, malformed bytes) goes to Bun's own parser, which
 * answers it as the Bun.serve server does. No I/O here.
 */
import { lowerCaseFieldName } from '../../net/field-name.ts'
import { standardMethod } from '../../net/http-method.ts'
import { HTTP_TOKEN } from '../policy/forward-headers.ts'

/** A head longer than this goes to Bun.serve, which answers 431 where its own limit says. */
export const RAW_MAX_HEAD_BYTES = 16 * 1024
/** A body announced longer than this goes to Bun.serve, which streams it. */
export const RAW_MAX_BODY_BYTES = 1024 * 1024

export interface RequestHead {
  readonly method: string
  /** Path and query, as sent. */
  readonly target: string
  /** Field names, lower case, in the order sent; `values[i]` is the value of `names[i]`, trimmed. */
  readonly names: string[]
  readonly values: string[]
  /** The announced body length; 0 without Content-Length. */
  readonly contentLength: number
  /** The client asked for the connection to be closed after the response (`Connection: close`). */
  readonly close: boolean
}

export type HeadScan =
  /** No end of head yet: more bytes are needed. */
  | { readonly kind: 'incomplete' }
  /** A head the raw server serves; its body (if any) starts at `bodyStart`. */
  | { readonly kind: 'head'; readonly head: RequestHead; readonly bodyStart: number }
  /** A request for Bun.serve: the connection, this head included, goes there. */
  | { readonly kind: 'elsewhere'; readonly reason: string }

const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\/[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*) HTTP\/1\.1$/
/** Visible ASCII, space and tab: anything else (obs-text, controls) is Bun's to judge. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/
const DIGITS = /^\d{1,15}$/
const CR = 13
const LF = 10
const HEAD_END = Buffer.from('\r\n\r\n')

function elsewhere(reason: string): HeadScan {
  return { kind: 'elsewhere', reason }
}

/**
 * Reads the head that starts at `from` in `data`.
 * @param searchFrom where the search for its end may start (past what an earlier call searched)
 */
export function scanRequestHead(data: Buffer, from: number, searchFrom = from): HeadScan {
  const end = data.indexOf(HEAD_END, Math.max(from, searchFrom - 3))
  if (end === -1) return data.byteLength - from > RAW_MAX_HEAD_BYTES ? elsewhere('head too large') : INCOMPLETE
  if (end - from > RAW_MAX_HEAD_BYTES) return elsewhere('head too large')
  const text = data.toString('latin1', from, end)
  // A bare LF anywhere: line ends that Bun may read otherwise than we would.
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === LF && (i === 0 || text.charCodeAt(i - 1) !== CR)) return elsewhere('bare LF')
  }
  const lines = text.split('\r\n')
  const match = REQUEST_LINE.exec(lines[0]!)
  if (match === null) return elsewhere('request line')
  const target = match[2]!
  // Targets the URL parser would change (dot segments, a leading `//`) are Bun's to normalise.
  if (target.includes('/.') || target.startsWith('//') || /%2e/i.test(target)) return elsewhere('target')
  const names: string[] = []
  const values: string[] = []
  let contentLength = -1
  let hosts = 0
  let close = false
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line.indexOf(':')
    if (colon <= 0) return elsewhere('field line')
    const name = lowerCaseFieldName(line, 0, colon)
    if (!HTTP_TOKEN.test(name)) return elsewhere('field name')
    // Trimmed of spaces and tabs only: String#trim also takes vertical tabs, form feeds and
    // no-break spaces, which would make `Content-Length: \v5` a 5. By offsets, not a regular
    // expression's replace, which made two strings per field.
    let start = colon + 1
    let end = line.length
    while (start < end && isOws(line.charCodeAt(start))) start++
    while (end > start && isOws(line.charCodeAt(end - 1))) end--
    const value = line.slice(start, end)
    // What was trimmed is spaces and tabs, which the check admits anyway.
    if (!FIELD_VALUE.test(value)) return elsewhere('field value')
    switch (name) {
      case 'transfer-encoding':
      case 'upgrade':
      case 'expect':
        return elsewhere(name)
      case 'content-length':
        if (contentLength !== -1 || !DIGITS.test(value)) return elsewhere('content-length')
        contentLength = Number(value)
        if (contentLength > RAW_MAX_BODY_BYTES) return elsewhere('body too large')
        break
      case 'host':
        hosts++
        break
      case 'connection': {
        for (const option of value.split(',')) {
          const token = option.trim().toLowerCase()
          if (token === 'close') close = true
          else if (token === 'upgrade') return elsewhere('upgrade')
        }
        break
      }
    }
    names.push(name)
    values.push(value)
  }
  if (hosts !== 1) return elsewhere('host')
  return {
    kind: 'head',
    head: { method: standardMethod(match[1]!), target, names, values, contentLength: Math.max(0, contentLength), close },
    bodyStart: end + 4,
  }
}

const INCOMPLETE: HeadScan = { kind: 'incomplete' }

/** Optional white space (RFC 9110 section 5.6.3): a space or a tab. */
function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09
}
