import type postgres from 'postgres'

/**
 * Where a gate's noise rollups disagree with its stored requests, at both
 * grains: the endpoints' noise_checks (captures whose noise check was
 * quiet or noisy) per bucket and endpoint, and noise_rollups' counts per
 * bucket and noise signature. Empty when they are exact (docs/storage.md
 * "Noise rollups").
 */
export async function noiseDrift(sql: postgres.Sql, gateId: string): Promise<postgres.Row[]> {
  // A capture counts in its minute, and in its hour before the gate's mark (src/store/fold-insight-hours.ts).
  const grains = (createdAt: postgres.PendingQuery<postgres.Row[]>) => sql`(
    SELECT g.grain FROM (VALUES (1::smallint), (60::smallint)) AS g (grain)
    WHERE g.grain = 1 OR insight_bucket(${createdAt}, 60::smallint)
      < (SELECT through FROM insight_hour_marks WHERE gate_id = ${gateId}::uuid)
  ) AS g`
  const rows = await sql`
    SELECT 'noise_checks' AS what, coalesce(a.grain, r.grain) AS grain, coalesce(a.bucket, r.bucket) AS bucket,
      coalesce(a.key, r.key) AS key, r.n::text AS rolled, a.n::text AS actual
    FROM (
      SELECT g.grain, insight_bucket(created_at, g.grain) AS bucket, method || ' ' || template AS key, count(*) AS n
      FROM requests CROSS JOIN LATERAL ${grains(sql`requests.created_at`)}
      WHERE gate_id = ${gateId} AND template IS NOT NULL AND noise_result IN ('quiet', 'noisy')
      GROUP BY 1, 2, 3
    ) AS a FULL JOIN (
      SELECT grain, bucket, method || ' ' || template AS key, sum(noise_checks) AS n
      FROM endpoint_rollups WHERE gate_id = ${gateId} GROUP BY 1, 2, 3 HAVING sum(noise_checks) <> 0
    ) AS r ON r.grain = a.grain AND r.bucket = a.bucket AND r.key = a.key
    WHERE coalesce(r.n, 0) <> coalesce(a.n, 0)
    UNION ALL
    SELECT 'noise_signature', coalesce(a.grain, r.grain), coalesce(a.bucket, r.bucket), coalesce(a.id, r.id), r.n::text, a.n::text
    FROM (
      SELECT g.grain, insight_bucket(created_at, g.grain) AS bucket, noise_signature_id AS id, count(*) AS n
      FROM requests CROSS JOIN LATERAL ${grains(sql`requests.created_at`)}
      WHERE gate_id = ${gateId} AND noise_signature_id IS NOT NULL AND template IS NOT NULL
      GROUP BY 1, 2, 3
    ) AS a FULL JOIN (
      SELECT grain, bucket, signature_id AS id, sum(capture_count) AS n
      FROM noise_rollups WHERE gate_id = ${gateId} GROUP BY 1, 2, 3 HAVING sum(capture_count) <> 0
    ) AS r ON r.grain = a.grain AND r.bucket = a.bucket AND r.id = a.id
    WHERE coalesce(r.n, 0) <> coalesce(a.n, 0)`
  return [...rows]
}
