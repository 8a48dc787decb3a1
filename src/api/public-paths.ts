/**
 * Paths outside authentication and rate limiting (docs/reference/api.md
 * "Conventions" and "Without a key": the probes, /metrics, the API docs, and
 * the icon a browser asks for by itself on their page, with no key to send).
 */
export function isPublicPath(path: string): boolean {
  return isProbePath(path) || path === '/swagger' || path.startsWith('/swagger/') || path === FAVICON_PATH
}

/** Where browsers look for a site's icon when the page names none. */
export const FAVICON_PATH = '/favicon.ico'

/** What orchestrators and scrapers call, often by IP: answered whatever the Host (src/api/plugins/host-allow-list.ts). */
export function isProbePath(path: string): boolean {
  return path.startsWith('/health/') || path === '/metrics'
}
