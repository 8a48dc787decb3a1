import type postgres from 'postgres'
import { ENDPOINT_COUNT_COLUMNS, latestExample } from './insight-rollups.ts'
import { inTransaction } from './reserved-transaction.ts'
import { sqlState, SQLSTATE } from './sql-errors.ts'
import { toNumber } from './rows.ts'

const COLUMNS = ENDPOINT_COUNT_COLUMNS.join(', ')
const SUMS = ENDPOINT_COUNT_COLUMNS.map((column) => `sum(${column})`).join(', ')
const ADD = ENDPOINT_COUNT_COLUMNS.map((column) => `${column} = r.${column} + excluded.${column}`).join(', ')
const NOT_EMPTY = ENDPOINT_COUNT_COLUMNS.map((column) => `sum(${column}) <> 0`).join(' OR ')

/**
 * How long the fold waits for the writers in flight before it gives up
 * until the next run. Shorter than PostgreSQL's deadlock_timeout (1 s), so
 * that the fold, never a writer, is the one that gives way.
 */
export const FOLD_LOCK_TIMEOUT_MS = 500

/**
 * Moves every gate's mark (insight_hour_marks) forward to the start of
 * the hour holding `before`: the hours it passes get their hour rows, the
 * sums of their minute rows (all shards, into shard 0), in the endpoint,
 * noise and signature rollups. Ingest counts captures in minutes only, so
 * hours are built here once instead of by every insert
 * (sql/0008_insight_hours_by_compaction.sql, docs/storage.md "Hours by
 * compaction").
 *
 * The SHARE lock on the three rollup tables waits until every writer in
 * flight has committed (each holds ROW EXCLUSIVE on them from its first
 * upsert, and a writer that read the old mark wrote no hour row for the
 * hours folded here, so its minute rows must be in the sums) and holds new
 * writers back for the few statements of the fold; a writer that waited
 * reads the new mark. When the writers in flight take longer than
 * FOLD_LOCK_TIMEOUT_MS the fold gives up, changes nothing and returns 0;
 * the next run tries again. Must run under the cleanup's advisory lock
 * (one fold at a time). Returns the number of gates whose mark moved.
 */
export async function foldInsightHours(conn: postgres.ReservedSql, before: Date): Promise<number> {
  const target = conn`insight_bucket(${before}::timestamptz, 60::smallint)`
  // The gates whose mark is behind the target, with the hours each gets now: [its mark (or the beginning), the target).
  const behind = conn`
    SELECT g.id AS gate_id, coalesce(m.through, '-infinity') AS lo, ${target} AS hi
    FROM gates g LEFT JOIN insight_hour_marks m ON m.gate_id = g.id
    WHERE m.through IS NULL OR m.through < ${target}`
  const [due] = await conn<{ n: string }[]>`SELECT count(*) AS n FROM (${behind}) AS t`
  if (toNumber(due?.n) === 0) return 0
  try {
    return await inTransaction(conn, async () => {
      await conn.unsafe(`SET LOCAL lock_timeout = '${FOLD_LOCK_TIMEOUT_MS}ms'`)
      await conn`LOCK TABLE endpoint_rollups, noise_rollups, signature_rollups IN SHARE MODE`
      await conn`
        WITH t AS (${behind})
        INSERT INTO endpoint_rollups AS r (gate_id, grain, bucket, method, template, shard, ${conn.unsafe(COLUMNS)})
        SELECT e.gate_id, 60, insight_bucket(e.bucket, 60::smallint), e.method, e.template, 0, ${conn.unsafe(SUMS)}
        FROM endpoint_rollups e JOIN t ON e.gate_id = t.gate_id
        WHERE e.grain = 1 AND e.bucket >= t.lo AND e.bucket < t.hi
        GROUP BY e.gate_id, insight_bucket(e.bucket, 60::smallint), e.method, e.template
        HAVING ${conn.unsafe(NOT_EMPTY)}
        ORDER BY e.gate_id, insight_bucket(e.bucket, 60::smallint), e.method, md5(e.template)
        ON CONFLICT (gate_id, grain, bucket, method, md5(template), shard) DO UPDATE SET ${conn.unsafe(ADD)}`
      await conn`
        WITH t AS (${behind})
        INSERT INTO noise_rollups AS s (gate_id, grain, bucket, signature_id, shard, capture_count)
        SELECT e.gate_id, 60, insight_bucket(e.bucket, 60::smallint), e.signature_id, 0, sum(e.capture_count)
        FROM noise_rollups e JOIN t ON e.gate_id = t.gate_id
        WHERE e.grain = 1 AND e.bucket >= t.lo AND e.bucket < t.hi
        GROUP BY e.gate_id, insight_bucket(e.bucket, 60::smallint), e.signature_id
        HAVING sum(e.capture_count) <> 0
        ORDER BY e.gate_id, insight_bucket(e.bucket, 60::smallint), e.signature_id
        ON CONFLICT (gate_id, grain, bucket, signature_id, shard) DO UPDATE SET capture_count = s.capture_count + excluded.capture_count`
      await conn`
        WITH t AS (${behind})
        INSERT INTO signature_rollups AS s (gate_id, grain, bucket, signature_id, shard, capture_count, first_seen, last_seen, example_id)
        SELECT e.gate_id, 60, insight_bucket(e.bucket, 60::smallint), e.signature_id, 0, sum(e.capture_count),
          min(e.first_seen), max(e.last_seen),
          (array_agg(e.example_id ORDER BY e.last_seen DESC NULLS LAST, e.example_id DESC NULLS LAST))[1]
        FROM signature_rollups e JOIN t ON e.gate_id = t.gate_id
        WHERE e.grain = 1 AND e.bucket >= t.lo AND e.bucket < t.hi
        GROUP BY e.gate_id, insight_bucket(e.bucket, 60::smallint), e.signature_id
        HAVING sum(e.capture_count) <> 0
        ORDER BY e.gate_id, insight_bucket(e.bucket, 60::smallint), e.signature_id
        ON CONFLICT (gate_id, grain, bucket, signature_id, shard) DO UPDATE SET
          capture_count = s.capture_count + excluded.capture_count,
          first_seen = least(s.first_seen, excluded.first_seen),
          last_seen = greatest(s.last_seen, excluded.last_seen),
          example_id = ${latestExample(conn)}`
      const moved = await conn`
        WITH t AS (${behind})
        INSERT INTO insight_hour_marks AS m (gate_id, through)
        SELECT gate_id, hi FROM t
        ON CONFLICT (gate_id) DO UPDATE SET through = greatest(m.through, excluded.through)
        RETURNING 1`
      return moved.length
    })
  } catch (error) {
    if (sqlState(error) === SQLSTATE.lockNotAvailable) return 0
    throw error
  }
}
