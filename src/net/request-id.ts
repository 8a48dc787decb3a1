/** The textual UUID form (RFC 9562 §4), any version, either case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const REQUEST_ID_HEADER = 'X-Request-ID'

/** Whether `text` is a UUID: what ids and request ids must be everywhere. */
export function isUuid(text: string): boolean {
  return UUID.test(text)
}

/**
 * The request's id (SPEC.md "Request-id header"): its X-Request-ID when
 * that is a UUID, lower-cased, else a new v4 (DESIGN.md: a non-UUID is
 * ignored). The API returns it; the proxy propagates it as the capture id.
 */
export function requestIdOf(headers: Headers): string {
  const given = headers.get(REQUEST_ID_HEADER)?.trim()
  return given && isUuid(given) ? given.toLowerCase() : crypto.randomUUID()
}
