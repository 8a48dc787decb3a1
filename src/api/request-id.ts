/** An X-Request-ID is honoured only when it is a UUID (DESIGN.md: otherwise a new one). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const REQUEST_ID_HEADER = 'X-Request-ID'

export function isUuid(text: string): boolean {
  return UUID.test(text)
}

export function requestIdOf(headers: Headers): string {
  const given = headers.get(REQUEST_ID_HEADER)?.trim()
  return given && isUuid(given) ? given.toLowerCase() : crypto.randomUUID()
}
