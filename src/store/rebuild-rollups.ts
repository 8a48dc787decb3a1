import type postgres from 'postgres'
import { insightRowColumns, rollupSteps } from './insight-rollups.ts'

/**
 * Recomputes request_rollups, request_path_rollups, gate_counters and the
 * insight and noise rollups (of the requests that have a template) from
 * the stored requests (of one gate, or of all). For requests written without
 * the stores, such as a benchmark's bulk INSERT ... SELECT generate_series,
 * and for repair. Writers wait meanwhile (SHARE lock on requests), so the
 * result is exact. last_active only moves forward, as on ingest.
 */
export async function rebuildRollups(sql: postgres.Sql, gateId?: string): Promise<void> {
  const only = (column: string) => (gateId === undefined ? sql`` : sql`AND ${sql(column)} = ${gateId}`)
  await sql.begin(async (tx) => {
    await tx`LOCK TABLE requests IN SHARE MODE`
    await tx`DELETE FROM request_rollups WHERE true ${only('gate_id')}`
    await tx`
      INSERT INTO request_rollups (gate_id, bucket, method, shard, request_count, diff_count)
      SELECT gate_id, request_bucket(created_at), method, 0, count(*), count(*) FILTER (WHERE has_diff)
      FROM requests WHERE true ${only('gate_id')}
      GROUP BY 1, 2, 3`
    await tx`DELETE FROM request_path_rollups WHERE true ${only('gate_id')}`
    await tx`
      INSERT INTO request_path_rollups (gate_id, path, method, shard, request_count, diff_count)
      SELECT gate_id, path, method, 0, count(*), count(*) FILTER (WHERE has_diff)
      FROM requests WHERE true ${only('gate_id')}
      GROUP BY 1, 2, 3`
    // Everything lands in shard 0; last_active keeps its maximum over the old shards.
    await tx`
      INSERT INTO gate_counters AS c (gate_id, shard, request_count, last_active)
      SELECT g.id, 0,
        (SELECT count(*) FROM requests r WHERE r.gate_id = g.id),
        greatest((SELECT max(r.created_at) FROM requests r WHERE r.gate_id = g.id),
                 (SELECT max(o.last_active) FROM gate_counters o WHERE o.gate_id = g.id))
      FROM gates g WHERE true ${only('g.id')}
      ON CONFLICT (gate_id, shard) DO UPDATE
        SET request_count = excluded.request_count, last_active = excluded.last_active`
    await tx`DELETE FROM gate_counters WHERE shard <> 0 ${only('gate_id')}`
    await tx`DELETE FROM endpoint_rollups WHERE true ${only('gate_id')}`
    await tx`DELETE FROM signature_rollups WHERE true ${only('gate_id')}`
    await tx`DELETE FROM noise_rollups WHERE true ${only('gate_id')}`
    await tx`
      WITH insight_rows AS (
        SELECT ${insightRowColumns(tx, 'r')}, k.kind
        FROM requests r LEFT JOIN insight_signatures k ON k.gate_id = r.gate_id AND k.id = r.signature_id
        WHERE r.template IS NOT NULL ${only('r.gate_id')}
      ),
      ${rollupSteps(tx, { sign: 1, shard: 'maintenance' })}
      SELECT count(*) FROM signature_rollup`
  })
}
