import type postgres from 'postgres'

/**
 * Recomputes request_rollups and gate_counters from the stored requests (of
 * one gate, or of all). For requests written without the stores, such as a
 * benchmark's bulk INSERT ... SELECT generate_series, and for repair. Writers
 * wait meanwhile (SHARE lock on requests), so the result is exact.
 * last_active only moves forward, as on ingest.
 */
export async function rebuildRollups(sql: postgres.Sql, gateId?: string): Promise<void> {
  const only = (column: string) => (gateId === undefined ? sql`` : sql`AND ${sql(column)} = ${gateId}`)
  await sql.begin(async (tx) => {
    await tx`LOCK TABLE requests IN SHARE MODE`
    await tx`DELETE FROM request_rollups WHERE true ${only('gate_id')}`
    await tx`
      INSERT INTO request_rollups (gate_id, bucket, method, request_count, diff_count)
      SELECT gate_id, request_bucket(created_at), method, count(*), count(*) FILTER (WHERE has_diff)
      FROM requests WHERE true ${only('gate_id')}
      GROUP BY 1, 2, 3`
    await tx`
      INSERT INTO gate_counters AS c (gate_id, request_count, last_active)
      SELECT g.id, count(r.id), max(r.created_at)
      FROM gates g LEFT JOIN requests r ON r.gate_id = g.id
      WHERE true ${only('g.id')}
      GROUP BY g.id
      ON CONFLICT (gate_id) DO UPDATE
        SET request_count = excluded.request_count, last_active = greatest(c.last_active, excluded.last_active)`
  })
}
