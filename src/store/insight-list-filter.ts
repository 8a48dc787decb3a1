import type postgres from 'postgres'
import { hourMark } from './insight-window.ts'
import { toNumber } from './rows.ts'

type Sql = postgres.Sql
type Fragment = postgres.PendingQuery<postgres.Row[]>

/**
 * listRequests' `signature` and `template` filters (docs/reference/api.md
 * "listRequests").
 */
export interface InsightListFilter {
  /** A signature id: the captures counted under it. */
  signature?: string
  /** A template, compared exactly. */
  template?: string
}

/** The query's other filters that rollups can count with (RequestListQuery's). */
interface CountQuery extends InsightListFilter {
  method?: string[]
  from?: Date
  to?: Date
  has_diff?: boolean
}

/**
 * WHERE conditions on requests for the filters, in the forms the indexes
 * requests_gate_signature_created_idx and
 * requests_gate_template_created_idx (first 512 characters) serve.
 */
export function insightRowFilters(sql: Sql, filter: InsightListFilter): Fragment {
  return sql`
    ${filter.signature === undefined ? sql`` : sql`AND signature_id = ${filter.signature}::text`}
    ${filter.template === undefined
      ? sql``
      : sql`AND left(template, 512) = left(${filter.template}::text, 512) AND template = ${filter.template}::text`}`
}

/**
 * The number of a gate's requests matching a `signature` or `template`
 * filter with `method`, `has_diff`, `from` and `to`, exactly, without
 * reading the matching rows in bulk: the whole minutes inside [from, to]
 * from the insight rollups (mostly hour rows when there is no range), the
 * partial minutes at the ends from the rows, through the filter's index.
 * `rawFilters` are the row conditions of the whole query; `bounds` a
 * rangeBounds fragment (request-list.ts).
 */
export async function countByInsight(
  sql: Sql,
  gateId: string,
  query: CountQuery,
  rawFilters: Fragment,
  bounds: Fragment,
): Promise<number> {
  const methods = query.method?.length ? query.method : undefined
  const methodFilter = methods === undefined ? sql`` : sql`AND r.method = ANY(${methods}::text[])`
  // Every capture with a signature has a diff; an endpoint rollup counts both kinds.
  const rollup =
    query.signature !== undefined
      ? query.has_diff === false
        ? undefined
        : sql`
          SELECT coalesce(sum(r.capture_count), 0) AS n FROM signature_rollups r, b
          WHERE r.gate_id = ${gateId} AND r.signature_id = ${query.signature}::text AND ${range(sql, gateId, query)}
            AND EXISTS (SELECT 1 FROM insight_signatures s WHERE s.gate_id = r.gate_id AND s.id = r.signature_id
              ${methods === undefined ? sql`` : sql`AND s.method = ANY(${methods}::text[])`}
              ${query.template === undefined ? sql`` : sql`AND s.template = ${query.template}::text`})`
      : sql`
          SELECT coalesce(sum(${query.has_diff === undefined
            ? sql`r.request_count`
            : query.has_diff
              ? sql`r.has_diff_count`
              : sql`r.request_count - r.has_diff_count`}), 0) AS n
          FROM endpoint_rollups r, b
          WHERE r.gate_id = ${gateId} AND md5(r.template) = md5(${query.template!}::text) AND r.template = ${query.template!}::text
            AND ${range(sql, gateId, query)} ${methodFilter}`
  if (rollup === undefined) return 0
  const [row] = await sql<{ total: string }[]>`
    WITH b AS (${bounds})
    SELECT (${rollup})
      + (SELECT count(*) FROM requests, b
        WHERE gate_id = ${gateId} AND created_at >= b.lo AND created_at < b.mid_from ${rawFilters})
      + (SELECT count(*) FROM requests, b
        WHERE gate_id = ${gateId} AND created_at >= b.mid_to AND created_at <= b.hi ${rawFilters})
      AS total`
  return toNumber(row?.total)
}

/**
 * The rollup rows of [mid_from, mid_to): without a range, every hour row
 * and the minute rows from the gate's mark on (each capture counts in
 * exactly one of those, fold-insight-hours.ts); else the minute rows of the
 * whole minutes.
 */
function range(sql: Sql, gateId: string, query: CountQuery): Fragment {
  return query.from === undefined && query.to === undefined
    ? sql`(r.grain = 60 OR (r.grain = 1 AND r.bucket >= ${hourMark(sql, gateId)}))`
    : sql`r.grain = 1 AND r.bucket >= b.mid_from AND r.bucket < b.mid_to`
}
