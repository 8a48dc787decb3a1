import type postgres from 'postgres'
import { countByInsight, insightRowFilters, type InsightListFilter } from './insight-list-filter.ts'
import { pathCondition, resolvePathMatch, type PathMatch } from './path-match.ts'
import { isoString, toNumber, type Page, type RequestSummary, type SortOrder } from './rows.ts'

/** listRequests sort keys (docs/reference/api.md "listRequests"), defined once. */
export const REQUEST_SORT_KEYS = ['created_at', 'method', 'path'] as const
export type RequestSortKey = (typeof REQUEST_SORT_KEYS)[number]

/** listRequests (docs/reference/api.md); the filters combine with AND. */
export interface RequestListQuery extends InsightListFilter {
  limit: number
  offset: number
  /** Any of these methods, compared exactly (the API upper-cases them). */
  method?: string[]
  /** Case-sensitive, unanchored substring; `*` = any sequence, every other character literal. */
  path?: string
  /** created_at >= from. */
  from?: Date
  /** created_at <= to. */
  to?: Date
  has_diff?: boolean
  sort: RequestSortKey
  order: SortOrder
}

/** The summary columns of requests, as selected by SUMMARY_COLUMNS. */
export interface SummaryRow {
  id: string
  method: string
  path: string
  raw_query: string
  created_at: Date
  live_status: number
  live_latency_ms: string
  shadow_status: number
  shadow_latency_ms: string
  has_diff: boolean
  template: string | null
  signature_id: string | null
}

type Sql = postgres.Sql
type Fragment = postgres.PendingQuery<postgres.Row[]>

export function summaryColumns(sql: Sql): Fragment {
  return sql`id, method, path, raw_query, created_at, live_status, live_latency_ms, shadow_status, shadow_latency_ms, has_diff,
    template, signature_id`
}

/**
 * One page (in the order asked, ties broken by id in the same direction)
 * and the number of matches, in two concurrent queries. A path filter is
 * first resolved to the gate's matching paths (path-match.ts).
 */
export async function listRequests(sql: Sql, gateId: string, query: RequestListQuery): Promise<Page<RequestSummary>> {
  const methods = query.method?.length ? query.method : undefined
  const path = query.path === undefined ? undefined : await resolvePathMatch(sql, gateId, query.path, methods)
  if (path?.kind === 'none') return { items: [], total: 0 }
  const [rows, total] = await Promise.all([
    sql<SummaryRow[]>`
      SELECT ${summaryColumns(sql)} FROM requests
      WHERE gate_id = ${gateId} ${rowFilters(sql, query, path)}
      ${orderBy(sql, query.sort, query.order)}
      LIMIT ${query.limit} OFFSET ${query.offset}`,
    countRequests(sql, gateId, query, path),
  ])
  return { items: rows.map(toSummary), total }
}

/**
 * The number of a gate's requests matching the filters, exactly:
 * - no filter: the gate's counter (at most 9 shard rows);
 * - method, has_diff, from, to: the rollups' whole minutes inside
 *   [from, to] plus the raw rows of the partial minutes at both ends;
 * - a path filter alone or with method / has_diff: the path rollups of the
 *   gate whose path matches (one row per distinct path, method and shard),
 *   summed when the filter was resolved unless too many paths matched;
 * - a path filter with from / to: the matching rows in the range, looked up by
 *   path and created_at (docs/storage.md "Rollups: why and how exact", path
 *   filter).
 */
async function countRequests(sql: Sql, gateId: string, query: RequestListQuery, path: PathMatch | undefined): Promise<number> {
  const methods = query.method?.length ? query.method : undefined
  const unfiltered = methods === undefined && path === undefined && query.from === undefined &&
    query.to === undefined && query.has_diff === undefined && query.signature === undefined && query.template === undefined
  if (unfiltered) {
    const [row] = await sql<{ total: string }[]>`
      SELECT sum(request_count) AS total FROM gate_counters WHERE gate_id = ${gateId}`
    return toNumber(row?.total)
  }
  const measure =
    query.has_diff === undefined
      ? sql`r.request_count`
      : query.has_diff
        ? sql`r.diff_count`
        : sql`r.request_count - r.diff_count`
  if (path === undefined && (query.signature !== undefined || query.template !== undefined)) {
    const rawFilters = rowFilters(sql, { ...query, method: methods, from: undefined, to: undefined }, undefined)
    return countByInsight(sql, gateId, { ...query, method: methods }, rawFilters, rangeBounds(sql, query.from, query.to))
  }
  if (path !== undefined) {
    const insightFiltered = query.signature !== undefined || query.template !== undefined
    if (query.from !== undefined || query.to !== undefined || insightFiltered) {
      const [row] = await sql<{ total: string }[]>`
        SELECT count(*) AS total FROM requests WHERE gate_id = ${gateId} ${rowFilters(sql, query, path)}`
      return toNumber(row?.total)
    }
    if (path.kind === 'paths') {
      // Summed when the filter was resolved, over the same rollup rows.
      const { requests, diffs } = path
      return query.has_diff === undefined ? requests : query.has_diff ? diffs : requests - diffs
    }
    if (path.kind === 'pattern') {
      const [row] = await sql<{ total: string }[]>`
        SELECT coalesce(sum(${measure}), 0) AS total FROM request_path_rollups r
        WHERE r.gate_id = ${gateId} AND r.path LIKE ${path.pattern}
        ${methods === undefined ? sql`` : sql`AND r.method = ANY(${methods}::text[])`}`
      return toNumber(row?.total)
    }
    return 0
  }
  const rawFilters = rowFilters(sql, { method: methods, has_diff: query.has_diff }, undefined)
  const [row] = await sql<{ total: string }[]>`
    WITH b AS (${rangeBounds(sql, query.from, query.to)})
    SELECT
      (SELECT coalesce(sum(${measure}), 0) FROM request_rollups r, b
        WHERE r.gate_id = ${gateId} AND r.bucket >= b.mid_from AND r.bucket < b.mid_to
        ${methods === undefined ? sql`` : sql`AND r.method = ANY(${methods}::text[])`})
      + (SELECT count(*) FROM requests, b
        WHERE gate_id = ${gateId} AND created_at >= b.lo AND created_at < b.mid_from ${rawFilters})
      + (SELECT count(*) FROM requests, b
        WHERE gate_id = ${gateId} AND created_at >= b.mid_to AND created_at <= b.hi ${rawFilters})
      AS total`
  return toNumber(row?.total)
}

/**
 * Splits [from, to] (inclusive, open ends as infinities) into
 * [lo, mid_from) raw, [mid_from, mid_to) whole rollup minutes, [mid_to, hi]
 * raw. Without a whole minute inside, mid_from = mid_to = lo and everything
 * is raw. Timestamps have microsecond resolution, so a minute bucket b is
 * whole iff lo <= b and b + 1 min - 1 µs <= hi.
 */
export function rangeBounds(sql: Sql, from: Date | undefined, to: Date | undefined): Fragment {
  return sql`
    SELECT lo, hi,
      CASE WHEN f < t THEN f ELSE lo END AS mid_from,
      CASE WHEN f < t THEN t ELSE lo END AS mid_to
    FROM (
      SELECT lo, hi,
        request_bucket(lo + interval '1 minute' - interval '1 microsecond') AS f,
        request_bucket(hi + interval '1 microsecond') AS t
      FROM (SELECT coalesce(${from ?? null}::timestamptz, '-infinity') AS lo,
                   coalesce(${to ?? null}::timestamptz, 'infinity') AS hi) AS p
    ) AS x`
}

/**
 * WHERE conditions on requests' own columns. has_diff is written as a
 * literal so that the partial index requests_gate_diff_created_idx applies
 * to generic plans too.
 */
export function rowFilters(sql: Sql, query: Partial<RequestListQuery>, path: PathMatch | undefined): Fragment {
  const methods = query.method?.length ? query.method : undefined
  return sql`
    ${methods === undefined ? sql`` : sql`AND method = ANY(${methods}::text[])`}
    ${path === undefined ? sql`` : pathCondition(sql, path, query.sort === 'path')}
    ${query.from === undefined ? sql`` : sql`AND created_at >= ${query.from}`}
    ${query.to === undefined ? sql`` : sql`AND created_at <= ${query.to}`}
    ${query.has_diff === undefined ? sql`` : query.has_diff ? sql`AND has_diff` : sql`AND NOT has_diff`}
    ${insightRowFilters(sql, query)}`
}

/** The sort key expressions match the indexes; `path` sorts by its first 512 characters (then id). */
function orderBy(sql: Sql, sort: RequestSortKey, order: SortOrder): Fragment {
  const key = sort === 'path' ? sql`left(path, 512)` : sort === 'method' ? sql`method` : sql`created_at`
  return order === 'asc' ? sql`ORDER BY ${key} ASC, id ASC` : sql`ORDER BY ${key} DESC, id DESC`
}

export function toSummary(row: SummaryRow): RequestSummary {
  return {
    id: row.id,
    method: row.method,
    path: row.path,
    ...(row.raw_query === '' ? {} : { raw_query: row.raw_query }),
    created_at: isoString(row.created_at),
    live_response: { status_code: row.live_status, latency_ms: toNumber(row.live_latency_ms) },
    shadow_response: { status_code: row.shadow_status, latency_ms: toNumber(row.shadow_latency_ms) },
    has_diff: row.has_diff,
    template: row.template,
    signature_id: row.signature_id,
  }
}
