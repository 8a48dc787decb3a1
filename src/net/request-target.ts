/**
 * The path (and query) of an absolute request URL, as a server receives it,
 * without building a URL object on the hot path.
 */

/**
 * `/a/b?x=1` of `http://host/a/b?x=1`; `/` when there is no path. Bun
 * hands a request with an empty or malformed `Host` over with the bare
 * target (`/a/b?x=1`) as its URL: that is returned as it is.
 */
export function pathAndQueryOf(url: string): string {
  if (url.charCodeAt(0) === 47 /* '/' */) return url
  const start = url.indexOf('/', url.indexOf('//') + 2)
  return start === -1 ? '/' : url.slice(start)
}

/** `/a/b` of `http://host/a/b?x=1#f`. */
export function pathOf(url: string): string {
  const target = pathAndQueryOf(url)
  const query = target.indexOf('?')
  const hash = target.indexOf('#')
  const end = Math.min(query === -1 ? target.length : query, hash === -1 ? target.length : hash)
  return target.slice(0, end)
}

/** A capture's `path` and `rawQuery` of a request target: `/a/b?x=1` → `/a/b`, `x=1`. */
export function splitTarget(target: string): { path: string; rawQuery: string } {
  const q = target.indexOf('?')
  return q === -1 ? { path: target, rawQuery: '' } : { path: target.slice(0, q), rawQuery: target.slice(q + 1) }
}
