/** Paths outside authentication and rate limiting (SPEC.md "Authentication" 5; the API docs). */
export function isPublicPath(path: string): boolean {
  return path.startsWith('/health/') || path === '/metrics' || path === '/swagger' || path.startsWith('/swagger/')
}
