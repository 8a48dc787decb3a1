/** Paths outside authentication and rate limiting (SPEC.md "Authentication" 5; the API docs). */
export function isPublicPath(path: string): boolean {
  return isProbePath(path) || path === '/swagger' || path.startsWith('/swagger/')
}

/** What orchestrators and scrapers call, often by IP: answered whatever the Host (src/api/plugins/host-allow-list.ts). */
export function isProbePath(path: string): boolean {
  return path.startsWith('/health/') || path === '/metrics'
}
