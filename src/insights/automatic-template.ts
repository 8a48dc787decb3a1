import { isIdentifierLike } from './identifier-like.ts'
import { decodedSegment, routeSegments } from './route-path.ts'

/** What an identifier-like path segment becomes. */
export const ID_PLACEHOLDER = '{id}'

/**
 * The automatic route template of a request path (docs/insights.md
 * "Automatic templating"): each segment whose decoded text is
 * identifier-like becomes `{id}`; every other segment is kept as received
 * (percent-encoding untouched), except that a literal `{` or `}` is written
 * `%7B` / `%7D`, so that `{id}` in a template always means a placeholder.
 * Query, fragment and doubled slashes are handled as in route-path.ts.
 *
 * `/v2/products/15028/price?x=1` gives `/v2/products/{id}/price`.
 */
export function automaticTemplate(path: string): string {
  return templateOfSegments(routeSegments(path))
}

/** The automatic template of a path already cut by routeSegments. */
export function templateOfSegments(segments: readonly string[]): string {
  let template = ''
  for (const segment of segments) {
    template += '/'
    if (isIdentifierLike(decodedSegment(segment))) template += ID_PLACEHOLDER
    else if (BRACE.test(segment)) template += segment.replace(/\{/g, '%7B').replace(/\}/g, '%7D')
    else template += segment
  }
  return template
}

const BRACE = /[{}]/
