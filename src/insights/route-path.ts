/**
 * How a request path is cut into segments for endpoint templates, one rule
 * for the automatic templates and the explicit ones (docs/insights.md
 * "Paths"):
 * - the query and fragment are not part of it (`?` or `#` ends the path);
 * - runs of slashes count as one (`/a//b` is `/a/b`), as the shadow rules
 *   read paths: clients that double a slash reach the same route;
 * - a trailing slash is kept, as an empty last segment: `/users/` and
 *   `/users` are told apart, as many servers route them apart;
 * - `/` is one empty segment; an empty path counts as `/`.
 *
 * Segments are returned as received (percent-encoded); `decodedSegment`
 * gives the text that rules compare.
 */
export function routeSegments(path: string): string[] {
  const end = pathEnd(path)
  const start = path.charCodeAt(0) === SLASH ? 1 : 0
  const segments: string[] = []
  let from = start
  for (let i = start; i <= end; i++) {
    if (i < end && path.charCodeAt(i) !== SLASH) continue
    // An empty segment is kept only at the end: the trailing slash, or `/`.
    if (i > from || i === end) segments.push(path.slice(from, i))
    from = i + 1
  }
  return segments
}

/** The percent-decoded text of a segment; a malformed escape leaves it as received. */
export function decodedSegment(segment: string): string {
  if (segment.indexOf('%') === -1) return segment
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

const SLASH = 47

function pathEnd(path: string): number {
  const query = path.indexOf('?')
  const fragment = path.indexOf('#')
  if (query === -1) return fragment === -1 ? path.length : fragment
  return fragment === -1 ? query : Math.min(query, fragment)
}
