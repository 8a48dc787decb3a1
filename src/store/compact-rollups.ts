import type postgres from 'postgres'
import { foldInsightHours } from './fold-insight-hours.ts'
import { foldInsightShards } from './fold-insight-shards.ts'
import { inTransaction } from './reserved-transaction.ts'
import { toNumber } from './rows.ts'

/** Minutes younger than this are left to ingest (their shards still grow). */
export const COMPACT_AFTER_MS = 5 * 60_000

/**
 * Folds the ingest shards (1..8) of every rollup minute older than
 * `before` into shard 0, gate by gate, so that reading a day of rollups
 * reads about one row per minute and method instead of up to nine. Sums
 * are unchanged at every instant (one statement per gate). Must run under
 * the cleanup's advisory lock (see runCleanup / compactRollups in
 * cleanup.ts): two folds or a fold and a cleanup batch would take shard-0
 * rows in different orders. The insight rollups are folded too
 * (fold-insight-shards.ts), and their hours past `before` built
 * (fold-insight-hours.ts). Returns the number of shard rows folded.
 */
export async function foldShards(conn: postgres.ReservedSql, before: Date): Promise<number> {
  const gates = await conn<{ gate_id: string }[]>`
    SELECT DISTINCT gate_id FROM request_rollups WHERE shard <> 0 AND bucket < ${before}`
  let folded = 0
  for (const { gate_id: gateId } of gates) {
    folded += await inTransaction(conn, async () => {
      // The gate first: a concurrent deleteGate waits for this fold, or has removed everything.
      const gate = await conn`SELECT 1 FROM gates WHERE id = ${gateId} FOR KEY SHARE`
      if (gate.length === 0) return 0
      const [row] = await conn<{ folded: string }[]>`
        WITH moved AS (
          DELETE FROM request_rollups
          WHERE gate_id = ${gateId} AND shard <> 0 AND bucket < ${before}
          RETURNING bucket, method, request_count, diff_count
        ),
        added AS (
          INSERT INTO request_rollups AS r (gate_id, bucket, method, shard, request_count, diff_count)
          SELECT ${gateId}::uuid, bucket, method, 0, sum(request_count), sum(diff_count)
          FROM moved GROUP BY bucket, method
          ON CONFLICT (gate_id, bucket, method, shard) DO UPDATE
            SET request_count = r.request_count + excluded.request_count,
                diff_count = r.diff_count + excluded.diff_count
        )
        SELECT count(*) AS folded FROM moved`
      return toNumber(row?.folded)
    })
  }
  folded += await foldInsightShards(conn, before)
  await foldInsightHours(conn, before)
  return folded
}
