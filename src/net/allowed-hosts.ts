import { parseIp, type IpAddress } from './ip-address.ts'

/**
 * The `Host` values a server answers to, against DNS rebinding: a page on
 * `evil.example` whose name is re-pointed at 127.0.0.1 reaches a local
 * server as a same-origin page, but its requests still say
 * `Host: evil.example` (RFC 9110 §7.2). Names match case-insensitively,
 * the port is not compared, `*.example.com` matches any subdomain of
 * example.com (not example.com itself), and IP literals match as
 * addresses (`::1` and `0:0::1` are one address).
 */
export type HostPattern =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'subdomains'; readonly suffix: string }
  | { readonly kind: 'ip'; readonly key: string }

/** The rule an entry breaks, phrased to follow "must be" in a startup line. */
export const ALLOWED_HOSTS_RULE = 'a list of host names or IP addresses without ports, optionally *.example.com for subdomains'

/** RFC 1123 labels; `_` too, which container runtimes allow in service names. */
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/

/** One entry of SVC_APP_ALLOWED_HOSTS, or undefined when it is none of the accepted forms. */
export function parseHostPattern(text: string): HostPattern | undefined {
  const entry = text.trim().toLowerCase()
  if (entry.startsWith('*.')) {
    const name = hostName(entry.slice(2))
    return name === undefined || parseIp(name) ? undefined : { kind: 'subdomains', suffix: `.${name}` }
  }
  // An IPv6 literal, bracketed or not; an IPv4 literal.
  if (entry.includes(':') || /^[\d.]+$/.test(entry)) {
    const bare = entry.startsWith('[') && entry.endsWith(']') ? entry.slice(1, -1) : entry
    if (bare.includes('%') || bare.includes('[')) return undefined
    const ip = parseIp(bare)
    return ip && { kind: 'ip', key: ipKey(ip) }
  }
  const name = hostName(entry)
  return name === undefined ? undefined : { kind: 'name', name }
}

/** The host of a `Host` header value, lower-cased, without port or trailing dot. */
export type HostOfHeader = { readonly kind: 'name'; readonly name: string } | { readonly kind: 'ip'; readonly key: string }

/** RFC 9110 §7.2 / RFC 3986 §3.2.2: `name[:port]`, `a.b.c.d[:port]`, `[v6][:port]`. */
export function hostOfHeader(value: string | null | undefined): HostOfHeader | undefined {
  if (!value) return undefined
  const text = value.trim().toLowerCase()
  let host: string
  let rest: string
  if (text.startsWith('[')) {
    const end = text.indexOf(']')
    if (end === -1) return undefined
    host = text.slice(1, end)
    rest = text.slice(end + 1)
    // Only an IPv6 literal is bracketed; a zone index is not sent (RFC 6874 §3).
    if (host.includes('%') || !host.includes(':')) return undefined
    const ip = parseIp(host)
    if (!ip) return undefined
    return validPort(rest) ? { kind: 'ip', key: ipKey(ip) } : undefined
  }
  const colon = text.indexOf(':')
  host = colon === -1 ? text : text.slice(0, colon)
  rest = colon === -1 ? '' : text.slice(colon)
  if (!validPort(rest)) return undefined
  if (/^[\d.]+$/.test(host)) {
    const ip = parseIp(host.replace(/\.$/, ''))
    return ip ? { kind: 'ip', key: ipKey(ip) } : undefined
  }
  const name = hostName(host)
  return name === undefined ? undefined : { kind: 'name', name }
}

/** A set of patterns compiled once; `allows` takes the raw `Host` header value. */
export class AllowedHosts {
  private readonly names: ReadonlySet<string>
  private readonly ips: ReadonlySet<string>
  private readonly suffixes: readonly string[]

  constructor(readonly patterns: readonly HostPattern[]) {
    this.names = new Set(patterns.flatMap((p) => (p.kind === 'name' ? [p.name] : [])))
    this.ips = new Set(patterns.flatMap((p) => (p.kind === 'ip' ? [p.key] : [])))
    this.suffixes = patterns.flatMap((p) => (p.kind === 'subdomains' ? [p.suffix] : []))
  }

  /** Whether a request with this `Host` header is meant for this server; a missing or malformed one is not. */
  allows(hostHeader: string | null | undefined): boolean {
    const host = hostOfHeader(hostHeader)
    if (host === undefined) return false
    if (host.kind === 'ip') return this.ips.has(host.key)
    return this.names.has(host.name) || this.suffixes.some((suffix) => host.name.endsWith(suffix))
  }
}

/** A DNS name, lower-case, one trailing dot dropped (`example.com.` is `example.com`). */
function hostName(text: string): string | undefined {
  const name = text.endsWith('.') ? text.slice(0, -1) : text
  if (name === '' || name.length > 253) return undefined
  return name.split('.').every((label) => LABEL.test(label)) ? name : undefined
}

function validPort(rest: string): boolean {
  return rest === '' || /^:\d{0,5}$/.test(rest)
}

function ipKey(ip: IpAddress): string {
  return `${ip.family}:${ip.bytes.join('.')}`
}
