import type postgres from 'postgres'
import type { InsightListFilter } from './insight-list-filter.ts'
import { resolvePathMatch, type PathMatch } from './path-match.ts'
import { rowFilters } from './request-list.ts'
import { detailColumns, toDetail, type DetailRow } from './request-store.ts'
import { isUuid } from '../net/request-id.ts'
import type { RequestDetail, SortOrder } from './rows.ts'
import { keysetPages, type KeyRow } from './keyset-batch.ts'

/** exportRequests' filters: listRequests' (docs/storage.md "Export"), in created_at order. */
export interface RequestExportQuery extends InsightListFilter {
  method?: string[]
  path?: string
  from?: Date
  to?: Date
  has_diff?: boolean
  /** By created_at, then id, in this direction. */
  order: SortOrder
  /** At most this many captures; all when absent. */
  limit?: number
}

/** How much one page of the export holds (docs/storage.md "Export"). */
export interface ExportPageBounds {
  /** Most captures per page. @default 100 */
  readonly rows?: number
  /**
   * Most body bytes per page (the three bodies of each capture), always
   * at least one capture: captures of up to 3 × SVC_APP_MAX_BODY_SIZE
   * would otherwise make a page of hundreds of MB. @default 8 MiB
   */
  readonly bytes?: number
}

/** A cursor over the export: each call gives the next page, `undefined` once nothing is left. */
export type RequestExport = () => Promise<RequestDetail[] | undefined>

type Sql = postgres.Sql

/**
 * The captures of a gate matching the filters, page by page, by keyset
 * on (created_at, id) (`keyset-batch.ts`), so that memory holds one page:
 * the keys and body sizes of the next `rows` captures, then the payloads
 * of as many of them as fit in `bytes`. A capture deleted between the two
 * (retention) is left out; one inserted behind the cursor is not seen.
 */
export async function openRequestExport(
  sql: Sql,
  gateId: string,
  query: RequestExportQuery,
  bounds: ExportPageBounds = {},
): Promise<RequestExport> {
  const methods = query.method?.length ? query.method : undefined
  const path: PathMatch | undefined = query.path === undefined || !isUuid(gateId) ? undefined : await resolvePathMatch(sql, gateId, query.path, methods)
  if (!isUuid(gateId) || path?.kind === 'none') return () => Promise.resolve(undefined)
  const filters = rowFilters(sql, { ...query, method: methods, sort: 'created_at' }, path)
  return keysetPages<RequestDetail>(
    sql,
    query.order,
    { rows: bounds.rows ?? 100, bytes: bounds.bytes ?? 8 * 1024 * 1024, limit: query.limit },
    {
      keys: (after, direction, count) => sql<KeyRow[]>`
        SELECT k.id, k.at, octet_length(p.body) + octet_length(p.live_body) + octet_length(p.shadow_body) AS size
        FROM (
          SELECT r.id, r.created_at, r.created_at::text AS at FROM requests r
          WHERE r.gate_id = ${gateId} ${filters} ${after}
          ORDER BY r.created_at ${direction}, r.id ${direction}
          LIMIT ${count}
        ) AS k JOIN request_payloads p ON p.request_id = k.id
        ORDER BY k.created_at ${direction}, k.id ${direction}`,
      rows: async (ids, direction) =>
        (
          await sql<DetailRow[]>`
            SELECT ${detailColumns(sql)}
            FROM requests r JOIN request_payloads p ON p.request_id = r.id
            WHERE r.id = ANY(${ids}::uuid[]) AND r.gate_id = ${gateId}
            ORDER BY r.created_at ${direction}, r.id ${direction}`
        ).map(toDetail),
    },
  )
}

/** The export as the API context holds it: the database bound once. */
export interface RequestExporter {
  open(gateId: string, query: RequestExportQuery): Promise<RequestExport>
}

export function createRequestExporter(sql: Sql, bounds: ExportPageBounds = {}): RequestExporter {
  return { open: (gateId, query) => openRequestExport(sql, gateId, query, bounds) }
}
