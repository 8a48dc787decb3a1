import type postgres from 'postgres'
import { ENDPOINT_COUNT_COLUMNS, latestExample } from './insight-rollups.ts'
import { inTransaction } from './reserved-transaction.ts'
import { toNumber } from './rows.ts'

const COUNTS = ENDPOINT_COUNT_COLUMNS
const COLUMNS = COUNTS.join(', ')
const SUMS = COUNTS.map((column) => `sum(${column})`).join(', ')
const ADD = COUNTS.map((column) => `${column} = r.${column} + excluded.${column}`).join(', ')

/**
 * Folds the ingest shards of the insight rollups (noise_rollups included)
 * into shard 0, as foldShards does for request_rollups
 * (compact-rollups.ts): the minute rows
 * older than `before`, and the hour rows whose last minute is. One
 * transaction per gate, rows locked in key order first (as ingest locks
 * them, since a late capture may still be writing one); sums never change.
 * Must run under the cleanup's advisory lock. Returns the shard rows folded.
 */
export async function foldInsightShards(conn: postgres.ReservedSql, before: Date): Promise<number> {
  const gates = await conn<{ gate_id: string }[]>`
    SELECT gate_id FROM endpoint_rollups WHERE shard <> 0 AND bucket < ${before}
    UNION SELECT gate_id FROM signature_rollups WHERE shard <> 0 AND bucket < ${before}
    UNION SELECT gate_id FROM noise_rollups WHERE shard <> 0 AND bucket < ${before}`
  let folded = 0
  for (const { gate_id: gateId } of gates) {
    folded += await inTransaction(conn, async () => {
      const gate = await conn`SELECT 1 FROM gates WHERE id = ${gateId} FOR KEY SHARE`
      if (gate.length === 0) return 0
      const due = conn`gate_id = ${gateId} AND shard <> 0 AND bucket < ${before}
        AND bucket + (grain - 1) * interval '1 minute' < ${before}`
      await conn`
        SELECT 1 FROM endpoint_rollups WHERE ${due}
        ORDER BY grain, bucket, method, md5(template), shard FOR UPDATE`
      const [endpoints] = await conn<{ folded: string }[]>`
        WITH moved AS (
          DELETE FROM endpoint_rollups WHERE ${due}
          RETURNING grain, bucket, method, template, ${conn.unsafe(COLUMNS)}
        ),
        added AS (
          INSERT INTO endpoint_rollups AS r (gate_id, grain, bucket, method, template, shard, ${conn.unsafe(COLUMNS)})
          SELECT ${gateId}::uuid, grain, bucket, method, template, 0, ${conn.unsafe(SUMS)}
          FROM moved GROUP BY grain, bucket, method, template
          ORDER BY grain, bucket, method, md5(template)
          ON CONFLICT (gate_id, grain, bucket, method, md5(template), shard) DO UPDATE SET ${conn.unsafe(ADD)}
        )
        SELECT count(*) AS folded FROM moved`
      await conn`
        SELECT 1 FROM signature_rollups WHERE ${due}
        ORDER BY grain, bucket, signature_id, shard FOR UPDATE`
      const [signatures] = await conn<{ folded: string }[]>`
        WITH moved AS (
          DELETE FROM signature_rollups WHERE ${due}
          RETURNING grain, bucket, signature_id, capture_count, first_seen, last_seen, example_id
        ),
        added AS (
          INSERT INTO signature_rollups AS s (gate_id, grain, bucket, signature_id, shard, capture_count, first_seen, last_seen, example_id)
          SELECT ${gateId}::uuid, grain, bucket, signature_id, 0, sum(capture_count), min(first_seen), max(last_seen),
            (array_agg(example_id ORDER BY last_seen DESC NULLS LAST, example_id DESC NULLS LAST))[1]
          FROM moved GROUP BY grain, bucket, signature_id
          ORDER BY grain, bucket, signature_id
          ON CONFLICT (gate_id, grain, bucket, signature_id, shard) DO UPDATE SET
            capture_count = s.capture_count + excluded.capture_count,
            first_seen = least(s.first_seen, excluded.first_seen),
            last_seen = greatest(s.last_seen, excluded.last_seen),
            example_id = ${latestExample(conn)}
        )
        SELECT count(*) AS folded FROM moved`
      await conn`
        SELECT 1 FROM noise_rollups WHERE ${due}
        ORDER BY grain, bucket, signature_id, shard FOR UPDATE`
      const [noise] = await conn<{ folded: string }[]>`
        WITH moved AS (
          DELETE FROM noise_rollups WHERE ${due}
          RETURNING grain, bucket, signature_id, capture_count
        ),
        added AS (
          INSERT INTO noise_rollups AS s (gate_id, grain, bucket, signature_id, shard, capture_count)
          SELECT ${gateId}::uuid, grain, bucket, signature_id, 0, sum(capture_count)
          FROM moved GROUP BY grain, bucket, signature_id
          ORDER BY grain, bucket, signature_id
          ON CONFLICT (gate_id, grain, bucket, signature_id, shard) DO UPDATE SET capture_count = s.capture_count + excluded.capture_count
        )
        SELECT count(*) AS folded FROM moved`
      return toNumber(endpoints?.folded) + toNumber(signatures?.folded) + toNumber(noise?.folded)
    })
  }
  return folded
}
