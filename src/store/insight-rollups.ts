import type postgres from 'postgres'
import { LATENCY_BUCKETS } from '../insights/latency-histogram.ts'

/**
 * The statements that keep endpoint_rollups and signature_rollups equal to
 * the stored requests (sql/0004_insights.sql, docs/storage.md "Insight
 * rollups"): the same aggregation adds a statement's inserted rows (ingest,
 * backfill), takes its deleted rows out (cleanup) and recomputes them
 * (rebuild), and noise_rollups with the endpoints' noise_checks
 * (sql/0006_noise_and_jobs.sql). Every piece reads a CTE named
 * `insight_rows` with the columns gate_id, id, created_at, method,
 * template, signature_id, has_diff, noise_result, noise_signature_id, kind
 * ('diff' | 'error' | NULL) and the latencies, one row per request that
 * has a template (rows without one are counted nowhere).
 */

/** Any client: the pool, a transaction, a reserved connection. */
type Sql = postgres.Sql | postgres.TransactionSql
type Fragment = postgres.PendingQuery<postgres.Row[]>

const pad = (i: number) => String(i).padStart(2, '0')
const histogram = (side: 'live' | 'shadow') => Array.from({ length: LATENCY_BUCKETS }, (_, i) => `${side}_${pad(i)}`)

/** live_00..live_47: how many live latencies fell in each bucket (LATENCY_THRESHOLDS_MS). */
export const LIVE_HISTOGRAM = histogram('live')
export const SHADOW_HISTOGRAM = histogram('shadow')
const HISTOGRAM = [...LIVE_HISTOGRAM, ...SHADOW_HISTOGRAM]
const COUNTS = ['request_count', 'has_diff_count', 'diff_count', 'error_count', 'noise_checks'] as const
/** The count columns of endpoint_rollups, histograms included: what folding and merging add up. */
export const ENDPOINT_COUNT_COLUMNS: readonly string[] = [...COUNTS, ...HISTOGRAM]

/**
 * Minutes per bucket: every capture counts once in its minute, and once in
 * its hour when that hour is before its gate's mark (fold-insight-hours.ts).
 */
export const GRAINS = { minute: 1, hour: 60 } as const

const ENDPOINT_COLUMNS = [...COUNTS, ...HISTOGRAM].join(', ')

/** `request_count = 0 AND ... AND shadow_47 = 0`: an endpoint rollup row that carries nothing. */
export const EMPTY_ENDPOINT_ROW = [...COUNTS, ...HISTOGRAM].map((column) => `${column} = 0`).join(' AND ')

/** The columns insight_rows selects from a source of request rows (`r`) with the signature kind as `kind`. */
export function insightRowColumns(sql: Sql, alias: string): Fragment {
  return sql.unsafe(
    ['gate_id', 'id', 'created_at', 'method', 'template', 'signature_id', 'has_diff', 'noise_result', 'noise_signature_id']
      .map((column) => `${alias}.${column}`)
      .concat([
        `latency_bucket(${alias}.live_latency_ms) AS live_bucket`,
        `latency_bucket(${alias}.shadow_latency_ms) AS shadow_bucket`,
      ])
      .join(', '),
  )
}

export interface UpsertOptions {
  /** +1 to count insight_rows in, -1 to take them out. */
  /**
   * +1 to count insight_rows in, -1 to take them out; `row`: each row
   * carries its own sign in a column `w` (a re-diff takes a capture's old
   * values out and its new ones in, in one statement).
   */
  readonly sign: 1 | -1 | 'row'
  /** Ingest writes its connection's shard; maintenance (cleanup, rebuild) writes shard 0. */
  readonly shard: 'ingest' | 'maintenance'
  /** A CTE to finish first, so that row locks are taken in one order. */
  readonly after?: string
}

function shardOf(sql: Sql, shard: UpsertOptions['shard']): Fragment {
  return shard === 'ingest' ? sql`ingest_shard()` : sql`0::smallint`
}

/** The signed count of the rows that pass `filter` (all without one), as SQL text. */
function tally(sign: UpsertOptions['sign'], filter?: string): string {
  const where = filter === undefined ? '' : ` FILTER (WHERE ${filter})`
  if (sign === 'row') return `coalesce(sum(x.w)${where}, 0)`
  return `${sign < 0 ? '-' : ''}count(*)${where}`
}

/**
 * The FROM and WHERE of an upsert: each insight row at the grains it
 * counts in (its minute always, its hour only before the gate's mark,
 * sql/0008_insight_hours_by_compaction.sql), after `after` when given, and
 * only the rows that pass `filter`.
 */
function grainedRows(sql: Sql, after: string | undefined, filter?: Fragment): Fragment {
  return sql`
    FROM insight_rows x CROSS JOIN (VALUES (1::smallint), (60::smallint)) AS g (grain)
      LEFT JOIN insight_hour_marks m ON m.gate_id = x.gate_id
      ${after === undefined ? sql`` : sql`, (SELECT count(*) AS n FROM ${sql(after)}) AS done`}
    WHERE (g.grain = 1 OR insight_bucket(x.created_at, 60::smallint) < m.through)
      ${after === undefined ? sql`` : sql`AND done.n >= 0`}
      ${filter === undefined ? sql`` : sql`AND ${filter}`}`
}

/**
 * INSERT ... ON CONFLICT of insight_rows into endpoint_rollups, per gate,
 * grain, bucket and endpoint, in key order (the order every writer locks
 * them in).
 */
export function endpointUpsert(sql: Sql, options: UpsertOptions): Fragment {
  const sign = options.sign
  const aggregates = [
    tally(sign),
    tally(sign, 'x.has_diff'),
    tally(sign, "x.kind = 'diff'"),
    tally(sign, "x.kind = 'error'"),
    // A check that compared two answers; one whose side failed tells nothing about noise.
    tally(sign, "x.noise_result IN ('quiet', 'noisy')"),
    ...LIVE_HISTOGRAM.map((_, i) => tally(sign, `x.live_bucket = ${i}`)),
    ...SHADOW_HISTOGRAM.map((_, i) => tally(sign, `x.shadow_bucket = ${i}`)),
  ].join(', ')
  const sums = [...COUNTS, ...HISTOGRAM].map((column) => `${column} = r.${column} + excluded.${column}`).join(', ')
  return sql`
    INSERT INTO endpoint_rollups AS r (gate_id, grain, bucket, method, template, shard, ${sql.unsafe(ENDPOINT_COLUMNS)})
    SELECT x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.method, x.template, ${shardOf(sql, options.shard)},
      ${sql.unsafe(aggregates)}
    ${grainedRows(sql, options.after)}
    GROUP BY x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.method, x.template
    ORDER BY x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.method, md5(x.template)
    ON CONFLICT (gate_id, grain, bucket, method, md5(template), shard) DO UPDATE SET ${sql.unsafe(sums)}`
}

/**
 * INSERT ... ON CONFLICT of insight_rows with a signature into
 * signature_rollups, in key order. Counting in keeps the earliest and
 * latest created_at and the latest capture's id (ties by the larger id);
 * taking out leaves them (a pruned minute's times stay as they were).
 */
export function signatureUpsert(sql: Sql, options: UpsertOptions): Fragment {
  const values =
    options.sign === 'row'
      ? sql`sum(x.w), min(x.created_at) FILTER (WHERE x.w > 0), max(x.created_at) FILTER (WHERE x.w > 0),
          (array_agg(x.id ORDER BY x.created_at DESC, x.id DESC) FILTER (WHERE x.w > 0))[1]`
      : options.sign > 0
        ? sql`count(*), min(x.created_at), max(x.created_at), (array_agg(x.id ORDER BY x.created_at DESC, x.id DESC))[1]`
        : sql`-count(*), NULL::timestamptz, NULL::timestamptz, NULL::uuid`
  return sql`
    INSERT INTO signature_rollups AS s (gate_id, grain, bucket, signature_id, shard, capture_count, first_seen, last_seen, example_id)
    SELECT x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.signature_id, ${shardOf(sql, options.shard)}, ${values}
    ${grainedRows(sql, options.after, sql`x.signature_id IS NOT NULL`)}
    GROUP BY x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.signature_id
    ORDER BY x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.signature_id
    ON CONFLICT (gate_id, grain, bucket, signature_id, shard) DO UPDATE SET
      capture_count = s.capture_count + excluded.capture_count,
      first_seen = least(s.first_seen, excluded.first_seen),
      last_seen = greatest(s.last_seen, excluded.last_seen),
      example_id = ${latestExample(sql)}`
}

/**
 * INSERT ... ON CONFLICT of insight_rows with a noise signature into
 * noise_rollups, in key order: how many noisy captures per noise
 * signature and bucket.
 */
export function noiseUpsert(sql: Sql, options: UpsertOptions): Fragment {
  return sql`
    INSERT INTO noise_rollups AS s (gate_id, grain, bucket, signature_id, shard, capture_count)
    SELECT x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.noise_signature_id, ${shardOf(sql, options.shard)},
      ${sql.unsafe(tally(options.sign))}
    ${grainedRows(sql, options.after, sql`x.noise_signature_id IS NOT NULL`)}
    GROUP BY x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.noise_signature_id
    ORDER BY x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.noise_signature_id
    ON CONFLICT (gate_id, grain, bucket, signature_id, shard) DO UPDATE SET capture_count = s.capture_count + excluded.capture_count`
}

/** The example of a merged signature_rollups row `s`: the one of the later last_seen (ties: the larger id). */
export function latestExample(sql: Sql): Fragment {
  return sql`CASE WHEN excluded.last_seen IS NOT NULL AND (s.last_seen IS NULL OR excluded.last_seen > s.last_seen
      OR (excluded.last_seen = s.last_seen AND excluded.example_id > s.example_id))
    THEN excluded.example_id ELSE s.example_id END`
}

/**
 * The CTEs `insight_rows`, `endpoint_rollup`, `noise_rollup` and
 * `signature_rollup` of a statement that inserts, backfills or deletes
 * requests: `source` is a CTE of the affected request rows (as RETURNING
 * gives them) with a `kind` column; the endpoint rows are written after
 * `after`, then the noise rows, then the signature rows, so a following
 * step can wait for `signature_rollup`.
 */
export function insightRollupSteps(sql: Sql, source: string, options: UpsertOptions): Fragment {
  return sql`
    insight_rows AS (
      SELECT ${insightRowColumns(sql, 'src')}, src.kind ${options.sign === 'row' ? sql`, src.w` : sql``}
      FROM ${sql(source)} AS src WHERE src.template IS NOT NULL
    ),
    ${rollupSteps(sql, options)}`
}

/** The upserts of insight_rows, in lock order: endpoints (after `after`), noise, signatures. */
export function rollupSteps(sql: Sql, options: UpsertOptions): Fragment {
  return sql`
    endpoint_rollup AS (${endpointUpsert(sql, options)} RETURNING 1),
    noise_rollup AS (${noiseUpsert(sql, { ...options, after: 'endpoint_rollup' })} RETURNING 1),
    signature_rollup AS (${signatureUpsert(sql, { ...options, after: 'noise_rollup' })} RETURNING 1)`
}

/**
 * The steps of a statement that deletes requests: `source` is its
 * RETURNING of the deleted rows' columns; each one's kind comes from the
 * signature definitions. Counts out of shard 0 after `after`.
 */
export function insightDeleteSteps(sql: Sql, source: string, after: string): Fragment {
  return sql`
    deleted_kinds AS (
      SELECT d.*, k.kind FROM ${sql(source)} AS d
        LEFT JOIN insight_signatures k ON k.gate_id = d.gate_id AND k.id = d.signature_id
    ),
    ${insightRollupSteps(sql, 'deleted_kinds', { sign: -1, shard: 'maintenance', after })}`
}

/** Drops a gate's insight rollup rows that carry nothing: never changes a sum. */
export async function dropEmptyInsightRows(conn: postgres.ReservedSql | Sql, gateId: string): Promise<void> {
  await conn`DELETE FROM endpoint_rollups WHERE gate_id = ${gateId} AND ${conn.unsafe(EMPTY_ENDPOINT_ROW)}`
  await conn`DELETE FROM signature_rollups WHERE gate_id = ${gateId} AND capture_count = 0`
  await conn`DELETE FROM noise_rollups WHERE gate_id = ${gateId} AND capture_count = 0`
}
