/**
 * The head of an HTTP/1.1 response (RFC 9112 sections 4 and 5) as the
 * shadow's client reads it (`http1-response.ts`): where it ends, its status
 * and fields, and how its body is framed. Pure: no I/O.
 */
import { lowerCaseFieldName } from '../../net/field-name.ts'

/**
 * The bytes do not make an HTTP/1.1 response the proxy will take: the
 * exchange fails (`bad response: <what>`) and the connection cannot be
 * trusted further.
 */
export class ResponseProtocolError extends Error {
  readonly code = 'bad-response'
  constructor(what: string) {
    super(`bad response: ${what}`)
  }
}

/** A head, or a trailer section, over MAX_HEAD_BYTES: refused rather than buffered. */
export class ResponseTooLargeError extends Error {
  readonly code = 'too-large'
  constructor(what: string) {
    super(`response too large (${what})`)
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

/**
 * A head (interim 1xx heads included) or a trailer section longer than
 * this is refused rather than buffered, however the bytes are split: room
 * for large cookies, far less than what a shadow that never ends its head
 * could make the proxy hold (docs/proxy.md "The shadow's client").
 */
export const MAX_HEAD_BYTES = 64 * 1024
const LF = 10
const CR = 13
/** Field values: visible bytes, spaces and tabs; a CR, LF or other control byte is refused, as fetch refuses it. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

/**
 * Where a head ends: the offset of its last line's end and of the first
 * byte after its empty line, searching for line ends from `from` (the
 * head starts at `offset`). Lines may end with a bare LF (RFC 9112
 * section 2.2 allows it; fetch accepts it), not with a bare CR.
 */
export function headEnd(data: Buffer, offset: number, from: number): [end: number, next: number] | undefined {
  let lf = data.indexOf(LF, from)
  while (lf !== -1) {
    const end = lf > offset && data[lf - 1] === CR ? lf - 1 : lf
    if (data[lf + 1] === LF) return [end, lf + 2]
    if (data[lf + 1] === CR && data[lf + 2] === LF) return [end, lf + 3]
    if (lf + 2 >= data.byteLength) return undefined
    lf = data.indexOf(LF, lf + 1)
  }
  return undefined
}

/** Where the line from `start` ends: its LF, or the end of the text. */
function lineEndAt(text: string, start: number): number {
  const lf = text.indexOf('\n', start)
  return lf === -1 ? text.length : lf
}

/** The line's content ends before a CR that precedes its LF (a bare CR elsewhere stays). */
function contentEnd(text: string, start: number, end: number): number {
  return end > start && end < text.length && text.charCodeAt(end - 1) === CR ? end - 1 : end
}

/** `text.slice(from, to).trim()` with one string made, not two: what `trim` drops in a latin1 string. */
function trimmedSlice(text: string, from: number, to: number): string {
  while (from < to && isTrimmed(text.charCodeAt(from))) from++
  while (to > from && isTrimmed(text.charCodeAt(to - 1))) to--
  return text.slice(from, to)
}

function isTrimmed(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0
}

// Made once: a regular expression literal in a function is a new RegExp object at each call.
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: |$)/
/** RFC 9110 section 5.6.2 `token`, lower case (names are lowered first). */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/
const DIGITS = /^\d{1,15}$/

/**
 * Status line and fields of a head (without its final empty line; lines
 * end with CRLF or LF). Read by offsets in `text`: a string per name and
 * per value, none per line (a shadowed request reads one head, and every
 * string is an allocation).
 */
export function parseHead(text: string, checkStatus: (status: number) => string | undefined = statusProblem): ResponseHead {
  let end = lineEndAt(text, 0)
  const statusLine = text.slice(0, contentEnd(text, 0, end))
  const match = STATUS_LINE.exec(statusLine)
  if (match === null) throw new ResponseProtocolError(`bad status line ${JSON.stringify(statusLine.slice(0, 80))}`)
  // No prototype: a field named `constructor` or `__proto__` is a field like any other.
  const fields: Record<string, string> = Object.create(null)
  const setCookies: string[] = []
  while (end < text.length) {
    const start = end + 1
    end = lineEndAt(text, start)
    const last = contentEnd(text, start, end)
    const colon = text.indexOf(':', start)
    if (colon <= start || colon >= last) throw new ResponseProtocolError(`bad header line ${JSON.stringify(text.slice(start, Math.min(last, start + 80)))}`)
    const name = lowerCaseFieldName(text, start, colon)
    if (!FIELD_NAME.test(name)) throw new ResponseProtocolError(`bad header name ${JSON.stringify(name)}`)
    const value = trimmedSlice(text, colon + 1, last)
    if (!FIELD_VALUE.test(value)) throw new ResponseProtocolError(`bad value of header ${JSON.stringify(name)}`)
    // A list in one Content-Length field is refused, as fetch refuses it;
    // repeated fields that agree are taken (framingOf).
    if (name === 'content-length' && value.includes(',')) throw new ResponseProtocolError(`bad Content-Length ${JSON.stringify(value)}`)
    if (name === 'set-cookie') setCookies.push(value)
    else {
      const prior = fields[name]
      fields[name] = prior === undefined ? value : `${prior}, ${value}`
    }
  }
  const status = Number(match[1])
  const problem = checkStatus(status)
  if (problem !== undefined) throw new ResponseProtocolError(problem)
  return { status, fields, setCookies }
}

/**
 * Why a status code is refused, if it is: RFC 9110 section 15, "All valid
 * status codes are within the range of 100 to 599, inclusive". One outside
 * it is not captured as a strange status (a 0 would read as "no
 * response", and the API stores only 100..599): the shadow's answer is a
 * bad response. Shared by both shadow clients.
 */
export function statusProblem(status: number): string | undefined {
  return status >= 100 && status <= 599 ? undefined : `status ${status} outside 100..599`
}

/**
 * What is wrong with live's final status, if anything: one a client can be
 * given is 200 to 599, what a Response takes. fetch gives 0 for `000` (a
 * failed side, whose body would be read as an error text) and passes
 * 600-999 on; both are bad responses (docs/proxy.md "Forwarding").
 */
export function liveStatusProblem(status: number): string | undefined {
  return status >= 200 && status <= 599 ? undefined : `status ${status} outside 200..599`
}

/**
 * What is wrong with a status of live's relayed response (the raw server,
 * `relay-live.ts`), if anything: an interim 1xx passes (the final head
 * follows), a final one must be one a client can be given, as on the
 * Bun.serve path (`liveStatusProblem`).
 */
export function relayedStatusProblem(status: number): string | undefined {
  return status >= 100 && status < 200 ? undefined : liveStatusProblem(status)
}

export type Framing =
  | { readonly kind: 'none' }
  | { readonly kind: 'length'; readonly length: number }
  | { readonly kind: 'chunked' }
  | { readonly kind: 'close' }

export function framingOf(method: string, head: ResponseHead): Framing {
  const { status, fields } = head
  if (method === 'HEAD' || status === 204 || status === 304) return { kind: 'none' }
  const coding = fields['transfer-encoding']
  if (coding !== undefined) {
    const codings = coding.split(',')
    return codings[codings.length - 1]!.trim().toLowerCase() === 'chunked' ? { kind: 'chunked' } : { kind: 'close' }
  }
  const length = fields['content-length']
  if (length !== undefined) {
    // One field, the usual case: no list to split.
    if (DIGITS.test(length)) return { kind: 'length', length: Number(length) }
    // Repeated fields (joined with ", ") must all agree (RFC 9110 section 8.6).
    const values = length.split(',').map((v) => v.trim())
    if (!values.every((v) => DIGITS.test(v) && Number(v) === Number(values[0]))) {
      throw new ResponseProtocolError(`bad Content-Length ${JSON.stringify(length)}`)
    }
    return { kind: 'length', length: Number(values[0]) }
  }
  return { kind: 'close' }
}

/** HTTP/1.1 keeps the connection unless told `close`; HTTP/1.0 only when told `keep-alive`. */
export function keepsAlive(head: string, fields: Record<string, string>): boolean {
  const connection = fields['connection']
  // No Connection field, the usual case: the version decides, no list to split.
  if (connection === undefined) return head.startsWith('HTTP/1.1')
  const tokens = connection.toLowerCase().split(',').map((t) => t.trim())
  if (tokens.includes('close')) return false
  return head.startsWith('HTTP/1.1') || tokens.includes('keep-alive')
}

/** `timeout=N` in a Keep-Alive field, seconds as digits only. */
const KEEP_ALIVE_TIMEOUT = /^\s*timeout\s*=\s*"?(\d{1,9})"?\s*$/i

/**
 * How long the server says it keeps an idle connection open, from its
 * `Keep-Alive: timeout=N` field (RFC 2068 section 19.7.1.1; HTTP/1.1
 * servers such as Apache and Node's send it), in ms; undefined when it
 * says nothing readable. Repeated fields: the shortest.
 */
export function keepAliveHintMs(fields: Readonly<Record<string, string>>): number | undefined {
  const value = fields['keep-alive']
  if (value === undefined) return undefined
  let shortest: number | undefined
  for (const part of value.split(',')) {
    const match = KEEP_ALIVE_TIMEOUT.exec(part)
    if (match === null) continue
    const ms = Number(match[1]) * 1000
    if (shortest === undefined || ms < shortest) shortest = ms
  }
  return shortest
}
