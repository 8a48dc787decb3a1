/**
 * The Differences view's state and its API queries (docs/insights.md):
 * the time window lives in the gate page's URL (`?window=1h`), the
 * endpoints, signatures and fields reads take `from` and their own sort,
 * order and paging, with the API's parameter names.
 */

import type { SortOrder } from './query-string.ts'
import type { SignatureKind } from './types.ts'

/** The windows offered; each is "the last …" up to now. */
export const WINDOWS = ['1h', '24h', '7d'] as const
export type InsightWindow = (typeof WINDOWS)[number]
export const DEFAULT_WINDOW: InsightWindow = '24h'

const WINDOW_MS: Readonly<Record<InsightWindow, number>> = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
}

export const WINDOW_LABELS: Readonly<Record<InsightWindow, string>> = {
  '1h': 'Last hour',
  '24h': 'Last 24 h',
  '7d': 'Last 7 days',
}

/** The window of a Differences URL; a missing or unknown value is the default. */
export function parseWindow(search: string | URLSearchParams): InsightWindow {
  const value = (typeof search === 'string' ? new URLSearchParams(search) : search).get('window')
  return (WINDOWS as readonly string[]).includes(value ?? '') ? (value as InsightWindow) : DEFAULT_WINDOW
}

/** `window=1h`, or '' for the default (links stay short and canonical). */
export function windowToString(window: InsightWindow): string {
  return window === DEFAULT_WINDOW ? '' : `window=${window}`
}

/** The start of the window ending at `now`, as the API's `from` (RFC 3339, UTC). */
export function windowStart(window: InsightWindow, now = Date.now()): string {
  return new Date(now - WINDOW_MS[window]).toISOString()
}

/**
 * The whole minutes the Differences view reads, as the API's `from` and
 * `to`: the window's length up to the last minute that has ended. Insights
 * count whole minutes, from the one holding `from` to the one holding
 * `to`, and a request list cuts at the instants themselves; on minute
 * bounds the two hold the same captures, and a minute still filling (which
 * a re-sort would read again, larger) is left out.
 */
export function countedWindow(window: InsightWindow, now = Date.now()): { from: string; to: string } {
  const minute = now - (now % 60_000)
  return { from: new Date(minute - WINDOW_MS[window]).toISOString(), to: new Date(minute - 1).toISOString() }
}

export const ENDPOINT_SORTS = ['diff_rate', 'requests', 'diffs', 'errors', 'template'] as const
export type EndpointSort = (typeof ENDPOINT_SORTS)[number]

export const SIGNATURE_SORTS = ['count', 'last_seen', 'first_seen'] as const
export type SignatureSort = (typeof SIGNATURE_SORTS)[number]

export const FIELD_SORTS = ['count', 'rate', 'path'] as const
export type FieldSort = (typeof FIELD_SORTS)[number]

/** One page of an insight read: the window's start, an optional endpoint, sort and paging. */
export interface InsightQuery<S extends string> {
  /** RFC 3339. */
  readonly from: string
  /** RFC 3339; the API's default (now) when left out. */
  readonly to?: string
  readonly sort: S
  readonly order: SortOrder
  readonly offset: number
  readonly limit: number
  /** Only this endpoint (signatures and fields); both or neither. */
  readonly method?: string
  readonly template?: string
  /** Only this kind of signature (signatures). */
  readonly kind?: SignatureKind
}

/** The API query of an insight read; every parameter given, so the answer never depends on defaults. */
export function insightQueryToString(q: InsightQuery<string>): string {
  const out = new URLSearchParams()
  out.set('from', q.from)
  if (q.to !== undefined) out.set('to', q.to)
  if (q.method !== undefined) out.set('method', q.method)
  if (q.template !== undefined) out.set('template', q.template)
  if (q.kind !== undefined) out.set('kind', q.kind)
  out.set('sort', q.sort)
  out.set('order', q.order)
  out.set('limit', String(q.limit))
  out.set('offset', String(q.offset))
  return out.toString()
}

/** Sort, order and paging of one table of the view, kept by the view. */
export interface TableState<S extends string> {
  readonly sort: S
  readonly order: SortOrder
  readonly offset: number
  readonly limit: number
}

/** A sort key the table accepts, else its current one (a header names only keys it offers). */
export function sortKeyOf<S extends string>(allowed: readonly S[], key: string, current: S): S {
  return (allowed as readonly string[]).includes(key) ? (key as S) : current
}
