/**
 * Exactly these methods and headers, a day of preflight cache
 * (docs/reference/api.md "Conventions", CORS).
 */
export const CORS_METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS']
export const CORS_HEADERS = ['Content-Type', 'Authorization']
export const CORS_MAX_AGE_SECONDS = 86400

/** What a browser client may read of a response: the request id, and when to retry after a 429. */
export const CORS_EXPOSED_HEADERS = ['X-Request-ID', 'Retry-After']
