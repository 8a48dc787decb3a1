import { type } from 'arktype'
import { InvalidParameterError } from '../errors/app-error.ts'

/**
 * The query string as the URL spells it (WHATWG URLSearchParams decoding),
 * in place of Elysia's reading, for a route's `transform` hook (before
 * validation). Elysia splits a value at its commas and parses one that
 * looks like JSON (`[…]`, `{…}`), so `?path=%3D%2C` reached the schema as
 * an array and was refused: a comma is a legal character of a path, a
 * name or a URL, and every filter but a list is a plain substring. Each
 * parameter is one string; a repeated one is refused unless it is a list
 * (listRequests' `method`, which the handler splits at commas itself).
 */
export function plainQuery(lists: readonly string[] = []) {
  const listed = new Set(lists)
  return function readQuery({ request, query }: { request: Request; query: Record<string, unknown> }): void {
    const parsed: Record<string, string | string[]> = Object.create(null)
    const url = request.url
    const start = url.indexOf('?')
    if (start !== -1) {
      for (const [key, value] of new URLSearchParams(url.slice(start + 1))) {
        const earlier = parsed[key]
        if (earlier === undefined) parsed[key] = value
        else if (!listed.has(key)) throw new InvalidParameterError(`${key} must be given once`, key)
        else parsed[key] = [earlier, value].flat()
      }
    }
    for (const key of Object.keys(query)) delete query[key]
    Object.assign(query, parsed)
  }
}

/**
 * A `method` filter as listRequests takes it: a comma-separated list or
 * the parameter repeated, upper-cased, empty items dropped; undefined
 * when none is left.
 */
export function methodList(method: string | string[] | undefined): string[] | undefined {
  const methods = [method ?? []].flat().flatMap((m) => m.split(',')).map((m) => m.trim().toUpperCase()).filter((m) => m !== '')
  return methods.length > 0 ? methods : undefined
}

/**
 * A `from` after `to` is a 400 naming `from` (an empty window would answer
 * 200 with nothing, which reads as "no captures" rather than a mistake).
 */
export function rejectReversedWindow(query: { from?: Date; to?: Date }, detail = 'from must not be after to'): void {
  if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
    throw new InvalidParameterError(detail, 'from')
  }
}

/**
 * The options of a route that takes no query parameter: one given anyway
 * is a 400 naming it, as on the routes that take some (docs/reference/api.md
 * "Conventions"), where it was ignored and a mistyped filter read as applied.
 */
export const noQuery = { transform: plainQuery(), query: type({ '+': 'reject' }) } as const
