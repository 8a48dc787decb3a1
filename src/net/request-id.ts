/** The textual UUID form (RFC 9562 §4), any version, either case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const REQUEST_ID_HEADER = 'X-Request-ID'

/** Whether `text` is a UUID: what ids and request ids must be everywhere. */
export function isUuid(text: string): boolean {
  return UUID.test(text)
}

/** RFC 9562 §5.9 and §5.10: placeholders that identify nothing. */
const NIL_OR_MAX = /^(0{8}-0{4}-0{4}-0{4}-0{12}|f{8}-f{4}-f{4}-f{4}-f{12})$/i

/**
 * The request's id (docs/reference/api.md "Conventions"): its X-Request-ID when
 * that is a UUID, lower-cased, else a new v4 (a non-UUID is ignored). Any
 * version is taken (clients that make v7 ids keep them), but not the nil or the
 * max UUID: a client sending a placeholder on every request would otherwise
 * have all its captures stored as one, since createRequest is idempotent on the
 * id. The API returns it; the proxy propagates it as the capture id.
 */
export function requestIdOf(headers: Headers): string {
  const given = headers.get(REQUEST_ID_HEADER)?.trim()
  return given && isUuid(given) && !NIL_OR_MAX.test(given) ? given.toLowerCase() : crypto.randomUUID()
}
