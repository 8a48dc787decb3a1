import type { HeaderMap } from './capture.ts'
import { setOwn } from './own-property.ts'
import { lowerCase, lowersTo } from '../text/case.ts'

/**
 * Headers that differ between any two responses and say nothing about the
 * service (docs/diff.md "What is compared"), in canonical form.
 */
export const VOLATILE_HEADERS = [
  'Date',
  'Content-Length',
  'Transfer-Encoding',
  'Connection',
  'Keep-Alive',
  'Age',
  'Server',
  'Via',
  'X-Request-Id',
  'Etag',
  'Last-Modified',
  'Expires',
] as const

/**
 * Hop-by-hop headers concern one connection, not the message (RFC 9110
 * section 7.6.1; RFC 2616 section 13.5.1 lists them), plus the de-facto
 * Proxy-Connection. Headers named in `Connection` are hop-by-hop too.
 */
export const HOP_BY_HOP_HEADERS = [
  'Connection',
  'Keep-Alive',
  'Proxy-Authenticate',
  'Proxy-Authorization',
  'Proxy-Connection',
  'Te',
  'Trailer',
  'Transfer-Encoding',
  'Upgrade',
] as const

const NOT_COMPARED = new Set<string>([...VOLATILE_HEADERS, ...HOP_BY_HOP_HEADERS])

const canonicalCache = new Map<string, string>()
const MAX_CACHED_NAMES = 1024

/**
 * The canonical form of a header name, as Go's CanonicalMIMEHeaderKey
 * writes it (docs/diff.md uses that form: `Etag`, `X-Request-Id`): the first
 * letter and every letter after a hyphen upper case, the rest lower case. A
 * name with a character outside RFC 9110's token set is left unchanged.
 */
export function canonicalHeaderName(name: string): string {
  const known = canonicalCache.get(name)
  if (known !== undefined) return known
  let out = name
  if (/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
    out = name
      .toLowerCase()
      .replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())
  }
  if (canonicalCache.size < MAX_CACHED_NAMES) canonicalCache.set(name, out)
  return out
}

/** Every value of a header, names matched case-insensitively; undefined when absent. */
export function headerValues(headers: HeaderMap, name: string): string[] | undefined {
  const wanted = lowerCase(name)
  let found: string[] | undefined
  for (const key in headers) {
    // Compared without lowering each key: a new string per key, per capture, for nothing.
    if (key.length !== wanted.length || !lowersTo(key, wanted)) continue
    const values = headers[key]
    if (values === undefined) continue
    found = found === undefined ? values : [...found, ...values]
  }
  return found
}

/**
 * The `headers` member of the compared document: canonical names (values of
 * names that differ only in case are joined), without the volatile and
 * hop-by-hop headers.
 */
export function comparedHeaders(headers: HeaderMap): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  const dropped = connectionOptions(headers)
  for (const name in headers) {
    const canonical = canonicalHeaderName(name)
    if (NOT_COMPARED.has(canonical) || dropped.has(canonical)) continue
    const values = headers[name]
    if (!Array.isArray(values)) continue
    const existing = Object.hasOwn(out, canonical) ? out[canonical] : undefined
    setOwn(out, canonical, existing === undefined ? values : [...existing, ...values])
  }
  return out
}

const NO_OPTIONS: ReadonlySet<string> = new Set()

/** Names listed in `Connection` (RFC 9110 section 7.6.1), canonical. */
function connectionOptions(headers: HeaderMap): ReadonlySet<string> {
  const values = headerValues(headers, 'connection')
  // The usual response names none: no Set per comparison for that.
  if (values === undefined) return NO_OPTIONS
  const out = new Set<string>()
  for (const value of values) {
    for (const option of value.split(',')) {
      const trimmed = option.trim()
      if (trimmed !== '') out.add(canonicalHeaderName(trimmed))
    }
  }
  return out
}
