import type postgres from 'postgres'
import { histogramPercentile } from '../insights/latency-histogram.ts'
import { classifyField } from '../insights/noise-classification.ts'
import { fieldCountSteps } from './field-counts.ts'
import type { ErrorClass, SignatureKind, SignatureOp } from '../insights/index.ts'
import type {
  EndpointFilter,
  EndpointQuery,
  EndpointSortKey,
  EndpointStats,
  FieldQuery,
  FieldSortKey,
  FieldStats,
  SignatureQuery,
  SignatureSortKey,
  SignatureStats,
} from './insight-queries.ts'
import { LIVE_HISTOGRAM, SHADOW_HISTOGRAM } from './insight-rollups.ts'
import { rollupsInWindow, windowBounds } from './insight-window.ts'
import { isoString, toNumber, type Page, type SortOrder } from './rows.ts'
import { isUuid } from '../net/request-id.ts'

/**
 * The insight reads (docs/reference/api.md "Insights"): per endpoint, per
 * signature and per field, over a time window, from endpoint_rollups,
 * signature_rollups and the signature definitions only; never from the capture
 * rows. Each is one statement: the window's rollup rows summed per key, then
 * the page (ties broken by the key's columns in the same direction, so pages
 * never overlap) and the number of keys.
 */
export interface InsightsStore {
  endpoints(gateId: string, query: EndpointQuery): Promise<Page<EndpointStats>>
  signatures(gateId: string, query: SignatureQuery): Promise<Page<SignatureStats>>
  fields(gateId: string, query: FieldQuery): Promise<Page<FieldStats>>
}

type Sql = postgres.Sql
type Fragment = postgres.PendingQuery<postgres.Row[]>

const EMPTY = { items: [], total: 0 }

export function createInsightsStore(sql: Sql): InsightsStore {
  return {
    async endpoints(gateId, query) {
      if (!isUuid(gateId)) return EMPTY
      const histogram = [...LIVE_HISTOGRAM, ...SHADOW_HISTOGRAM].map((column) => `sum(r.${column}) AS ${column}`).join(', ')
      const rows = await sql<EndpointRow[]>`
        WITH w AS (${windowBounds(sql, gateId, query)}),
        e AS (
          SELECT r.method, r.template, sum(r.request_count) AS requests, sum(r.diff_count) AS diffs,
            sum(r.error_count) AS errors, ${sql.unsafe(histogram)}
          FROM (${rollupsInWindow(sql, 'endpoint_rollups', gateId, sql`r.*`)}) AS r
          GROUP BY r.method, r.template
          HAVING sum(r.request_count) > 0
        ),
        x AS (SELECT e.*, e.diffs::float8 / e.requests AS diff_rate FROM e)
        ${page(sql, endpointOrder(sql, query.sort, query.order), query)}`
      return { items: rows.filter((row) => row.method !== null).map(toEndpoint), total: toNumber(rows[0]?.total) }
    },

    async signatures(gateId, query) {
      if (!isUuid(gateId)) return EMPTY
      const rows = await sql<SignatureRow[]>`
        WITH w AS (${windowBounds(sql, gateId, query)}),
        c AS (${signatureCounts(sql, gateId)}),
        x AS (
          SELECT ${catalogSignatureColumns(sql, 's')},
            c.n, c.first_seen, c.last_seen, c.example_id
          FROM c JOIN insight_signatures s ON s.gate_id = ${gateId} AND s.id = c.signature_id
          WHERE true ${endpointFilter(sql, 's', query)}
            ${query.kind === undefined ? sql`` : sql`AND s.kind = ${query.kind}`}
        )
        ${page(sql, signatureOrder(sql, query.sort, query.order), query, sql`, coalesce(sum(n), 0) AS all_n`)}`
      const all = toNumber(rows[0]?.all_n)
      return { items: rows.filter((row) => row.id !== null).map((row) => toSignature(row, all)), total: toNumber(rows[0]?.total) }
    },

    async fields(gateId, query) {
      if (!isUuid(gateId)) return EMPTY
      const rows = await sql<FieldRow[]>`
        WITH w AS (${windowBounds(sql, gateId, query)}),
        ${fieldCountSteps(sql, gateId, (alias) => endpointFilter(sql, alias, query))},
        x AS (SELECT f.*, coalesce(f.n::float8 / nullif(f.requests, 0), 0) AS rate FROM fields f)
        ${page(sql, fieldOrder(sql, query.sort, query.order), query)}`
      return { items: rows.filter((row) => row.path !== null).map(toField), total: toNumber(rows[0]?.total) }
    },
  }
}

/**
 * Per signature, its captures in the window `w`, the first and last
 * created_at counted and the latest capture's id.
 */
/**
 * Each signature's count in the window, with the first and last time and
 * the example of the buckets (minutes, or hours past the fold) that still
 * count a capture of it: a bucket a re-diff or the cleanup emptied keeps
 * the times of the captures it no longer counts, and must not lend them.
 */
function signatureCounts(sql: Sql, gateId: string): Fragment {
  const columns = sql`r.signature_id, r.grain, r.bucket, r.capture_count, r.first_seen, r.last_seen, r.example_id`
  return sql`
    SELECT b.signature_id, sum(b.n) AS n, min(b.first_seen) AS first_seen, max(b.last_seen) AS last_seen,
      (array_agg(b.example_id ORDER BY b.last_seen DESC NULLS LAST, b.example_id DESC NULLS LAST))[1] AS example_id
    FROM (
      SELECT r.signature_id, sum(r.capture_count) AS n, min(r.first_seen) AS first_seen, max(r.last_seen) AS last_seen,
        (array_agg(r.example_id ORDER BY r.last_seen DESC NULLS LAST, r.example_id DESC NULLS LAST))[1] AS example_id
      FROM (${rollupsInWindow(sql, 'signature_rollups', gateId, columns)}) AS r
      GROUP BY r.signature_id, r.grain, r.bucket
      HAVING sum(r.capture_count) > 0
    ) AS b
    GROUP BY b.signature_id`
}

function endpointFilter(sql: Sql, alias: string, filter: EndpointFilter): Fragment {
  const methods = filter.method?.length ? filter.method : undefined
  return sql`
    ${methods === undefined ? sql`` : sql`AND ${sql(alias + '.method')} = ANY(${methods}::text[])`}
    ${filter.template === undefined ? sql`` : sql`AND ${sql(alias + '.template')} = ${filter.template}::text`}`
}

/** One row even when the page is empty, so the number of keys always comes back. */
function page(sql: Sql, order: Fragment, query: { limit: number; offset: number }, totals: Fragment = sql``): Fragment {
  return sql`
    SELECT t.*, p.* FROM (SELECT count(*) AS total ${totals} FROM x) AS t
    LEFT JOIN LATERAL (SELECT * FROM x ${order} LIMIT ${query.limit} OFFSET ${query.offset}) AS p ON true`
}

/** `key, tie...` all in one direction. */
function orderBy(sql: Sql, keys: string[], order: SortOrder): Fragment {
  const direction = order === 'asc' ? 'ASC' : 'DESC'
  return sql.unsafe(`ORDER BY ${keys.map((key) => `${key} ${direction}`).join(', ')}`)
}

const ENDPOINT_KEYS: Record<EndpointSortKey, string[]> = {
  diff_rate: ['diff_rate', 'template', 'method'],
  requests: ['requests', 'template', 'method'],
  diffs: ['diffs', 'template', 'method'],
  errors: ['errors', 'template', 'method'],
  template: ['template', 'method'],
}
const endpointOrder = (sql: Sql, sort: EndpointSortKey, order: SortOrder) => orderBy(sql, ENDPOINT_KEYS[sort], order)

const SIGNATURE_KEYS: Record<SignatureSortKey, string[]> = {
  count: ['n', 'id'],
  last_seen: ['last_seen', 'id'],
  first_seen: ['first_seen', 'id'],
}
const signatureOrder = (sql: Sql, sort: SignatureSortKey, order: SortOrder) => orderBy(sql, SIGNATURE_KEYS[sort], order)

const FIELD_KEYS: Record<FieldSortKey, string[]> = {
  count: ['n', 'method', 'template', 'path', 'op'],
  rate: ['rate', 'method', 'template', 'path', 'op'],
  path: ['path', 'op', 'method', 'template'],
}
const fieldOrder = (sql: Sql, sort: FieldSortKey, order: SortOrder) => orderBy(sql, FIELD_KEYS[sort], order)

type Count = string | number

interface EndpointRow extends Record<string, unknown> {
  total: Count
  method: string
  template: string
  requests: Count
  diffs: Count
  errors: Count
  diff_rate: number
}

function toEndpoint(row: EndpointRow): EndpointStats {
  const side = (columns: readonly string[]) => {
    const counts = columns.map((column) => toNumber(row[column] as Count))
    return { p50: histogramPercentile(counts, 0.5), p95: histogramPercentile(counts, 0.95) }
  }
  return {
    method: row.method,
    template: row.template,
    requests: toNumber(row.requests),
    diffs: toNumber(row.diffs),
    errors: toNumber(row.errors),
    diff_rate: row.diff_rate,
    live_latency_ms: side(LIVE_HISTOGRAM),
    shadow_latency_ms: side(SHADOW_HISTOGRAM),
  }
}

const CATALOG_SIGNATURE_COLUMNS = ['id', 'kind', 'method', 'template', 'overflow', 'ops', 'truncated', 'live_error', 'shadow_error'] as const

/** The columns of a CatalogSignatureRow, of insight_signatures under `alias`. */
export function catalogSignatureColumns(sql: postgres.Sql | postgres.ReservedSql, alias: string): Fragment {
  return sql.unsafe(CATALOG_SIGNATURE_COLUMNS.map((column) => `${alias}.${column}`).join(', '))
}

/** A row of insight_signatures: what a signature is, as its catalog keeps it. */
export interface CatalogSignatureRow {
  id: string
  kind: SignatureKind
  method: string
  template: string
  overflow: boolean
  ops: SignatureOp[]
  truncated: boolean
  live_error: ErrorClass | null
  shadow_error: ErrorClass | null
}

interface SignatureRow extends CatalogSignatureRow {
  total: Count
  all_n: Count
  n: Count
  first_seen: Date
  last_seen: Date
  example_id: string
}

function toSignature(row: SignatureRow, all: number): SignatureStats {
  const count = toNumber(row.n)
  return {
    id: row.id,
    kind: row.kind,
    method: row.method,
    template: row.template,
    ops: row.ops,
    truncated: row.truncated,
    live_error: row.live_error,
    shadow_error: row.shadow_error,
    overflow: row.overflow,
    count,
    share: all > 0 ? count / all : 0,
    first_seen: isoString(row.first_seen),
    last_seen: isoString(row.last_seen),
    example_request_id: row.example_id,
  }
}

interface FieldRow {
  total: Count
  method: string
  template: string
  op: SignatureOp['op']
  path: string
  n: Count
  rate: number
  requests: Count
  noise_checks: Count
  noise_n: Count
}

function toField(row: FieldRow): FieldStats {
  const count = toNumber(row.n)
  const requests = toNumber(row.requests)
  const noiseChecks = toNumber(row.noise_checks)
  const noiseCount = toNumber(row.noise_n)
  return {
    method: row.method,
    template: row.template,
    op: row.op,
    path: row.path,
    count,
    rate: row.rate,
    noise_checks: noiseChecks,
    noise_count: noiseCount,
    noise_rate: noiseChecks > 0 ? noiseCount / noiseChecks : null,
    classification: classifyField({ requests, count, noiseChecks, noiseCount }),
  }
}
