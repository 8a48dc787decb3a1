import type postgres from 'postgres'
import { EndpointTemplates } from '../insights/index.ts'
import { captureInsight } from './capture-insight.ts'
import { compactRollups } from './cleanup.ts'
import { createInsightCatalog, type InsightCatalog } from './insight-catalog.ts'
import { insightRollupSteps } from './insight-rollups.ts'
import type { CaptureInput, PatchOp } from './rows.ts'
import { withDeadlockRetry } from './sql-errors.ts'

export interface BackfillOptions {
  /** Captures per statement (one transaction each). @default 1000 */
  readonly batchSize?: number
  readonly catalog?: InsightCatalog
  readonly log?: { info(msg: string, attrs?: Record<string, string | number>): void }
  /** How often progress is logged, in ms. @default 10000 */
  readonly progressEveryMs?: number
}

interface PendingRow {
  id: string
  gate_id: string
  method: string
  path: string
  created_at: Date
  has_diff: boolean
  live_status: number
  shadow_status: number
  diff: PatchOp[] | null
  live_error: Uint8Array | null
  shadow_error: Uint8Array | null
  endpoints: string[]
}

/** Error texts are short; their start is all a class needs (src/insights/error-class.ts). */
const ERROR_TEXT_BYTES = 256

/**
 * Gives the captures stored without a template (before migration 0004, or
 * by an older API since) their template and signature, and counts them in
 * the insight rollups in the same statement, in batches oldest first
 * (docs/storage.md "Insight backfill"). Resumable: what is left is what
 * still has no template, so a run that stops anywhere loses nothing and
 * the next one carries on. The gates' current explicit templates apply,
 * and the caps. Returns the number of captures backfilled.
 */
export async function backfillInsights(sql: postgres.Sql, options: BackfillOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 1000
  const catalog = options.catalog ?? createInsightCatalog(sql)
  const progressEveryMs = options.progressEveryMs ?? 10_000
  const templates = new Map<string, EndpointTemplates>()
  const started = performance.now()
  let lastLog = started
  let done = 0
  let after: { created_at: Date; id: string } | undefined
  for (;;) {
    const rows = await pending(sql, after, batchSize)
    if (rows.length === 0) break
    const items = await Promise.all(rows.map((row) => keysOf(catalog, templates, row)))
    done += await withDeadlockRetry(() => update(sql, items))
    const last = rows[rows.length - 1]!
    after = { created_at: last.created_at, id: last.id }
    if (options.log && performance.now() - lastLog >= progressEveryMs) {
      lastLog = performance.now()
      options.log.info('insight backfill in progress', { captures: done, seconds: Math.round((lastLog - started) / 1000) })
    }
    if (rows.length < batchSize) break
  }
  if (done > 0) {
    // Its counts went to this connection's ingest shard; folded now, the API's first cleanup does not meet them all at once.
    await compactRollups(sql)
    options.log?.info('insight backfill done', { captures: done, seconds: Math.round((performance.now() - started) / 1000) })
  }
  return done
}

/** The next captures without a template, in (created_at, id) order after the last batch. */
function pending(sql: postgres.Sql, after: { created_at: Date; id: string } | undefined, limit: number) {
  return sql<PendingRow[]>`
    SELECT r.id, r.gate_id, r.method, r.path, r.created_at, r.has_diff, r.live_status, r.shadow_status,
      CASE WHEN r.has_diff THEN p.diff END AS diff,
      CASE WHEN r.live_status = 0 THEN substring(p.live_body FROM 1 FOR ${ERROR_TEXT_BYTES}) END AS live_error,
      CASE WHEN r.shadow_status = 0 THEN substring(p.shadow_body FROM 1 FOR ${ERROR_TEXT_BYTES}) END AS shadow_error,
      g.endpoints
    FROM requests r
      JOIN request_payloads p ON p.request_id = r.id
      JOIN gates g ON g.id = r.gate_id
    WHERE r.template IS NULL
      ${after === undefined ? sql`` : sql`AND (r.created_at, r.id) > (${after.created_at}, ${after.id}::uuid)`}
    ORDER BY r.created_at, r.id
    LIMIT ${limit}`
}

interface BackfillItem {
  id: string
  template: string
  signatureId: string | null
  kind: string | null
}

async function keysOf(catalog: InsightCatalog, templates: Map<string, EndpointTemplates>, row: PendingRow): Promise<BackfillItem> {
  let explicit = templates.get(row.gate_id)
  if (explicit === undefined) {
    explicit = parseOrNone(row.endpoints)
    templates.set(row.gate_id, explicit)
  }
  const empty = new Uint8Array()
  const capture: CaptureInput = {
    id: row.id,
    method: row.method,
    path: row.path,
    raw_query: '',
    headers: {},
    body: empty,
    created_at: row.created_at,
    live_response: response(row.live_status, row.live_error ?? empty),
    shadow_response: response(row.shadow_status, row.shadow_error ?? empty),
    has_diff: row.has_diff,
    diff: row.diff ?? [],
    template: explicit.templateOf(row.path),
  }
  const { template, signature } = await captureInsight(catalog, row.gate_id, capture)
  return { id: row.id, template, signatureId: signature?.id ?? null, kind: signature?.kind ?? null }
}

function response(status: number, body: Uint8Array) {
  return { id: '', status_code: status, headers: {}, body, latency_ms: 0, created_at: new Date(0) }
}

/** Templates stored with a gate were checked when written; one that no longer parses means none. */
function parseOrNone(sources: unknown): EndpointTemplates {
  try {
    return Array.isArray(sources) ? EndpointTemplates.parse(sources as string[]) : EndpointTemplates.NONE
  } catch {
    return EndpointTemplates.NONE
  }
}

/** Sets the batch's templates and signatures and counts the rows it set, in one statement. */
async function update(sql: postgres.Sql, items: readonly BackfillItem[]): Promise<number> {
  const values = items
    .map((item) => sql`(${item.id}::uuid, ${item.template}::text, ${item.signatureId}::text, ${item.kind}::text)`)
    .reduce((list, row) => sql`${list}, ${row}`)
  const [row] = await sql<{ n: string }[]>`
    WITH v (id, template, signature_id, kind) AS (VALUES ${values}),
    upd AS (
      UPDATE requests r SET template = v.template, signature_id = v.signature_id
      FROM v WHERE r.id = v.id AND r.template IS NULL
      RETURNING r.gate_id, r.id, r.created_at, r.method, r.template, r.signature_id, r.has_diff,
        r.live_latency_ms, r.shadow_latency_ms, r.noise_result, r.noise_signature_id, v.kind
    ),
    ${insightRollupSteps(sql, 'upd', { sign: 1, shard: 'ingest' })}
    SELECT count(*) AS n FROM upd`
  return Number(row?.n ?? 0)
}
