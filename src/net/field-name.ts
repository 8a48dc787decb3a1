/**
 * A field name in lower case, read where it stands in a head's text, for
 * the raw server's request heads (`request-head.ts`) and our HTTP/1.1
 * client's response heads (`response-head.ts`). No I/O here.
 *
 * Most heads carry a few well-known names, and senders write them in
 * their usual case (`Content-Type`, `Host`). Lowering a slice of the head
 * made two strings, the slice and its lower-case copy, each an allocation
 * by the engine's own allocator (never a cheap one: the memory it hands
 * out was last touched long before); a live response of three such fields
 * cost six per request (docs/proxy.md "CPU per request"). A known name,
 * in any case, is the one string of that name made when this module
 * loads: none is made per request.
 */
import { lowerCase, spellsInAnyCase } from '../text/case.ts'

/** Names most requests and responses carry, lower case; any other is read as it comes. */
const KNOWN_NAMES = [
  'accept',
  'accept-encoding',
  'accept-language',
  'accept-ranges',
  'access-control-allow-origin',
  'age',
  'authorization',
  'cache-control',
  'connection',
  'content-encoding',
  'content-language',
  'content-length',
  'content-type',
  'cookie',
  'date',
  'etag',
  'expires',
  'forwarded',
  'host',
  'if-modified-since',
  'if-none-match',
  'keep-alive',
  'last-modified',
  'location',
  'origin',
  'pragma',
  'referer',
  'server',
  'set-cookie',
  'strict-transport-security',
  'traceparent',
  'tracestate',
  'transfer-encoding',
  'user-agent',
  'vary',
  'via',
  'x-content-type-options',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-powered-by',
  'x-real-ip',
  'x-request-id',
  'x-svc-mode',
] as const

/** The known names by length: a name is compared only with those of its own length. */
const BY_LENGTH: string[][] = []
for (const name of KNOWN_NAMES) (BY_LENGTH[name.length] ??= []).push(name)

/**
 * `text.slice(start, end).toLowerCase()`, the same string for any text
 * (a property test holds it), made without a string per call when the
 * name is a known one.
 */
export function lowerCaseFieldName(text: string, start: number, end: number): string {
  const candidates = BY_LENGTH[end - start]
  if (candidates !== undefined) {
    for (const known of candidates) if (spellsInAnyCase(text, start, known)) return known
  }
  return lowerCase(text.slice(start, end))
}
