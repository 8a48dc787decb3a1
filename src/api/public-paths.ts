/** Paths outside authentication and rate limiting (SPEC.md "Authentication" 5; the API docs). */
export function isPublicPath(path: string): boolean {
  return path.startsWith('/health/') || path === '/metrics' || path === '/swagger' || path.startsWith('/swagger/')
}

/** The path of an absolute request URL, without building a URL object. */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start === -1) return '/'
  const query = url.indexOf('?', start)
  const hash = url.indexOf('#', start)
  const end = Math.min(query === -1 ? url.length : query, hash === -1 ? url.length : hash)
  return url.slice(start, end)
}
