/**
 * The raw server's response to the client (RFC 9112): live's head with the
 * hop-by-hop fields dropped (as `clientResponseHeaders` drops them on the
 * Bun.serve path), and the body framed as live framed it where it can be
 * passed on as is: by its Content-Length, or none. A chunked body, or one
 * read until live closed its connection, is sent chunked (re-framed piece
 * by piece), so that the client's connection outlives live's. No I/O here.
 */
import type { Problem } from '../../errors/problem.ts'
import { PROBLEM_CONTENT_TYPE } from '../../errors/problem.ts'
import { connectionOptions, isHopByHop } from '../policy/forward-headers.ts'
import type { SentHead } from '../upstream/http1-response.ts'
import type { Framing, ResponseHead } from '../upstream/response-head.ts'

/** Where `HTTP/1.1 200` ends: the space before the reason phrase, when there is one. */
const STATUS_CODE_END = 'HTTP/1.1 200'.length
/** A line ending in LF alone (RFC 9112 lets a recipient take it; a sender writes CRLF). */
const BARE_LF = /(?:^|[^\r])\n/
const LENGTH = /^\d+$/

/**
 * Whether live's head can go to the client byte for byte: an HTTP/1.1
 * status line with its reason phrase, CRLF line ends throughout, no
 * hop-by-hop field (so none that `Connection` names either), a body framed
 * by one Content-Length or none, and a client connection that stays open.
 * What `clientHead` would write then says the same, in other words (names
 * lowered, repeated fields joined), and costs a string built per response.
 */
export function passesAsIs(head: ResponseHead, statusLine: string, framing: Framing, close: boolean, sent: SentHead): boolean {
  if (close || (framing.kind !== 'length' && framing.kind !== 'none')) return false
  if (statusLine.length <= STATUS_CODE_END || !statusLine.startsWith('HTTP/1.1 ')) return false
  if (sent.end - sent.start !== sent.text.length + 4 || BARE_LF.test(sent.text)) return false
  const { fields } = head
  for (const name in fields) if (isHopByHop(name)) return false
  const length = fields['content-length']
  return length === undefined || LENGTH.test(length)
}

export interface ClientHead {
  /** The head, its final empty line included. */
  readonly text: string
  /** The body goes out chunked (`chunk()`, then LAST_CHUNK). */
  readonly chunked: boolean
}

/**
 * @param statusLine live's status line, for its reason phrase
 * @param close the client's connection closes after this response (`Connection: close` is said)
 */
export function clientHead(head: ResponseHead, statusLine: string, framing: Framing, close: boolean): ClientHead {
  const chunked = framing.kind === 'chunked' || framing.kind === 'close'
  // Pieces joined once at the end: each `+=` on a string is a rope object of its own.
  // Live's own status line when it is HTTP/1.1 already and has the space before its reason
  // phrase (`HTTP/1.1 204` without one gets it: RFC 9112 section 4 requires it).
  const parts: string[] = statusLine.length > STATUS_CODE_END && statusLine.startsWith('HTTP/1.1 ') ? [statusLine, '\r\n'] : ['HTTP/1.1 ', String(head.status), ' ', reasonOf(statusLine), '\r\n']
  const { fields } = head
  const named = fields['connection'] === undefined ? undefined : new Set(connectionOptions(fields['connection']))
  for (const name in fields) {
    if (isHopByHop(name) || named?.has(name) === true) continue
    if (name === 'content-length') {
      // Framed anew, a length would contradict the chunks; repeated equal lengths are said once.
      if (!chunked) parts.push('content-length: ', framing.kind === 'length' ? String(framing.length) : fields[name]!, '\r\n')
      continue
    }
    parts.push(name, ': ', fields[name]!, '\r\n')
  }
  if (named?.has('set-cookie') !== true) for (const cookie of head.setCookies) parts.push('set-cookie: ', cookie, '\r\n')
  if (chunked) parts.push('transfer-encoding: chunked\r\n')
  if (close) parts.push('connection: close\r\n')
  parts.push('\r\n')
  return { text: parts.join(''), chunked }
}

/**
 * The proxy's own answer (a Problem) as a whole response.
 * @param withBody false for a HEAD request's: its length is said, its body is not sent
 */
export function problemResponseText(problem: Problem, close: boolean, withBody = true): string {
  const body = JSON.stringify(problem)
  return (
    `HTTP/1.1 ${problem.status} ${REASONS[problem.status] ?? ''}\r\n` +
    `content-type: ${PROBLEM_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    (close ? 'connection: close\r\n' : '') +
    `\r\n${withBody ? body : ''}`
  )
}

/** The size line of a chunk of `length` bytes (its data and CRLF follow). */
export function chunkSizeLine(length: number): string {
  return `${length.toString(16)}\r\n`
}

export const CHUNK_END = '\r\n'
export const LAST_CHUNK = '0\r\n\r\n'

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  504: 'Gateway Timeout',
}

/** The reason phrase of `HTTP/1.1 200 OK`: what follows the status code, possibly nothing. */
function reasonOf(statusLine: string): string {
  const space = statusLine.indexOf(' ', statusLine.indexOf(' ') + 1)
  return space === -1 ? '' : statusLine.slice(space + 1)
}
