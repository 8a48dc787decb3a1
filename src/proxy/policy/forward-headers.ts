/**
 * Headers on the way through the proxy (docs/proxy.md "Forwarding"):
 * hop-by-hop fields are dropped in both directions, both upstreams get the
 * standard X-Forwarded-* fields, and only the shadow (and the noise
 * check's repeat to live) gets `X-Svc-Mode`, so a client's own
 * `X-Svc-Mode` never reaches live. X-Forwarded-Host and
 * -Proto are what this proxy saw unless the peer is a trusted proxy
 * (docs/proxy.md "Forwarding").
 */
import { headersCopyOf, type FieldList, type RequestFields } from '../../net/field-list.ts'

/**
 * RFC 9110 §7.6.1: an intermediary removes the Connection field, every field
 * it names, and "fields that are known to require removal before
 * forwarding, whether or not they appear as a connection-option ...
 * Proxy-Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade". Trailer,
 * Proxy-Authenticate and Proxy-Authorization complete RFC 2616 §13.5.1's
 * list: they concern this hop (the proxy's own credentials), not the origin.
 */
export const HOP_BY_HOP_HEADERS = [
  'connection',
  'proxy-connection',
  'keep-alive',
  'te',
  'transfer-encoding',
  'upgrade',
  'trailer',
  'proxy-authenticate',
  'proxy-authorization',
] as const

/**
 * Added to shadow requests only, never redacted; its name is fixed
 * (docs/proxy.md "Forwarding").
 */
export const SHADOW_MODE_HEADER = 'x-svc-mode'
export const SHADOW_MODE_VALUE = 'shadow'
/** The same header on the noise check's second request to live, so that live can tell it apart (docs/proxy.md "Noise check"). */
export const REPEAT_MODE_VALUE = 'repeat'

/** What the proxy saw of the client, for the X-Forwarded-* fields. */
export interface ForwardedFor {
  /** The client's address as the proxy saw it (the socket peer). */
  readonly clientAddress: string | undefined
  /** `http` or `https`: the scheme of the request the proxy received. */
  readonly proto: string
  /**
   * The peer is a configured trusted proxy (SVC_APP_TRUSTED_PROXIES, the
   * module's `trusted_proxies`): the X-Forwarded-Host and -Proto it sent
   * are passed on. Any other peer's are replaced by what the proxy saw.
   */
  readonly peerTrusted: boolean
}

const HOP_BY_HOP = new Set<string>(HOP_BY_HOP_HEADERS)

/** RFC 9110 §5.6.2 `token`: what a field name, and so a connection option naming one, can be. */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** Whether a field (its name in lower case) concerns one hop only and is never passed on. */
export function isHopByHop(name: string): boolean {
  return HOP_BY_HOP.has(name)
}

/**
 * The field names a Connection field lists, lower case. An option that is
 * not a token names no field and is passed over: Headers throws on such a
 * name, and a client or live sending `Connection: a b` must not turn into
 * a 500 (or, on a response, a connection slot never released).
 */
export function connectionOptions(value: string): string[] {
  const names: string[] = []
  for (const option of value.split(',')) {
    const name = option.trim()
    if (HTTP_TOKEN.test(name)) names.push(name.toLowerCase())
  }
  return names
}

/**
 * Whether any hop-by-hop field is present: one pass over the names (Headers
 * names are lower case), far cheaper than a `has()` per listed field.
 */
function hasHopByHop(headers: Headers): boolean {
  for (const name of headers.keys()) if (HOP_BY_HOP.has(name)) return true
  return false
}

/** What the forwarding rules read and edit: `Headers`, or the raw server's `FieldList`. */
interface EditableFields {
  keys(): Iterable<string>
  get(name: string): string | null
  has(name: string): boolean
  set(name: string, value: string): void
  delete(name: string): void
}

/** Deletes the hop-by-hop fields and the ones `Connection` names (`connectionOptions`), in place. */
export function dropHopByHop(headers: EditableFields): void {
  const connection = headers.get('connection')
  if (connection !== null) for (const name of connectionOptions(connection)) headers.delete(name)
  // Only the fields present: a delete per listed name costs more than one pass.
  const present: string[] = []
  for (const name of headers.keys()) if (HOP_BY_HOP.has(name)) present.push(name)
  for (const name of present) headers.delete(name)
}

/**
 * The headers sent upstream, built once per request and shared by live and
 * shadow (the shadow's copy adds `X-Svc-Mode`). `Host` is left out so that
 * the client sets the upstream's own; the original is in X-Forwarded-Host.
 *
 * - `X-Svc-Mode` from the client is dropped: only the proxy says a request
 *   is a shadow one (docs/proxy.md "Forwarding"), and a live service
 *   that honours the header could otherwise be told to skip side effects.
 * - X-Forwarded-For is appended to, whoever the peer is (the de facto
 *   convention: "client, proxy1, ..."): the right-most entry is always the
 *   peer this proxy saw, and a reader that trusts only known proxies (the
 *   API's SVC_APP_TRUSTED_PROXIES rule) reads from the right.
 * - X-Forwarded-Host and -Proto are passed on when the peer is a trusted
 *   proxy that set them (a TLS-terminating load balancer knows the real
 *   scheme; this proxy does not terminate TLS). From any other peer they
 *   could be anything, and are replaced by the Host this proxy received and
 *   its own scheme (no X-Forwarded-Host when the request had no Host).
 * - RFC 7239's `Forwarded` says the same things (`host=`, `proto=`, `for=`)
 *   and is as easy to forge: it is passed on from a trusted proxy only, and
 *   dropped otherwise (this proxy states what it saw in the X- fields).
 */
export function upstreamRequestHeaders(incoming: Headers, forwarded: ForwardedFor): Headers {
  const headers = new Headers(incoming)
  applyForwarding(headers, forwarded)
  return headers
}

/** The same rules on the raw server's fields (`src/net/field-list.ts`), in place: the list is the request's own. */
export function upstreamRequestFields(fields: FieldList, forwarded: ForwardedFor): FieldList {
  applyForwarding(fields, forwarded)
  return fields
}

function applyForwarding(headers: EditableFields, forwarded: ForwardedFor): void {
  // One pass over the names says which of the fields below are there at all,
  // so that the usual request (no hop-by-hop field, no X-Forwarded-*) costs
  // no lookups for absent names.
  let hop = false
  let priorFor = false
  let priorHost = false
  let priorProto = false
  let spoofedMode = false
  let priorForwarded = false
  for (const name of headers.keys()) {
    if (HOP_BY_HOP.has(name)) hop = true
    else if (name === 'x-forwarded-for') priorFor = true
    else if (name === 'x-forwarded-host') priorHost = true
    else if (name === 'x-forwarded-proto') priorProto = true
    else if (name === SHADOW_MODE_HEADER) spoofedMode = true
    else if (name === 'forwarded') priorForwarded = true
  }
  if (hop) {
    // `Connection` may name any field, X-Forwarded-* included: ask again after.
    dropHopByHop(headers)
    priorFor = headers.has('x-forwarded-for')
    priorHost = headers.has('x-forwarded-host')
    priorProto = headers.has('x-forwarded-proto')
    priorForwarded = headers.has('forwarded')
  }
  if (priorForwarded && !forwarded.peerTrusted) headers.delete('forwarded')
  if (spoofedMode) headers.delete(SHADOW_MODE_HEADER)
  const host = headers.get('host')
  if (host !== null) headers.delete('host')
  if (forwarded.clientAddress !== undefined) {
    const prior = priorFor ? headers.get('x-forwarded-for') : null
    headers.set('x-forwarded-for', prior ? `${prior}, ${forwarded.clientAddress}` : forwarded.clientAddress)
  }
  const keepHost = priorHost && forwarded.peerTrusted
  if (host !== null && !keepHost) headers.set('x-forwarded-host', host)
  else if (host === null && priorHost && !keepHost) headers.delete('x-forwarded-host')
  if (!(priorProto && forwarded.peerTrusted)) headers.set('x-forwarded-proto', forwarded.proto)
}

/** The shadow's headers for fetch: the live ones plus `X-Svc-Mode: shadow`. */
export function shadowRequestHeaders(live: RequestFields): Headers {
  const headers = headersCopyOf(live)
  headers.set(SHADOW_MODE_HEADER, SHADOW_MODE_VALUE)
  return headers
}

/**
 * The live response's headers as sent to the client: everything live sent,
 * Content-Encoding and Content-Length included (the body is forwarded as
 * received), without the hop-by-hop fields, which Bun's server sets for its
 * own connection. Returns the input itself when there is nothing to drop.
 */
export function clientResponseHeaders(upstream: Headers): Headers {
  if (!hasHopByHop(upstream)) return upstream
  const headers = new Headers(upstream)
  dropHopByHop(headers)
  return headers
}

/** Removes IPv4-mapped IPv6 notation (`::ffff:10.0.0.1`) so X-Forwarded-For reads as usual. */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address
}
