import type postgres from 'postgres'
import { LIVE_HISTOGRAM, SHADOW_HISTOGRAM } from '../../src/store/insight-rollups.ts'

/**
 * Where a gate's insight rollups (endpoint_rollups, signature_rollups)
 * disagree with its stored requests, at both grains: requests, has_diff,
 * diff and error counts and both latency histograms per bucket and
 * endpoint, capture counts per bucket and signature. Empty when they are
 * exact (docs/storage.md "Insight rollups": the invariant the tests check
 * after every kind of write).
 */
export async function insightDrift(sql: postgres.Sql, gateId: string): Promise<postgres.Row[]> {
  // A capture counts in its minute, and in its hour before the gate's mark (src/store/fold-insight-hours.ts).
  const grains = (createdAt: postgres.PendingQuery<postgres.Row[]>) => sql`(
    SELECT g.grain FROM (VALUES (1::smallint), (60::smallint)) AS g (grain)
    WHERE g.grain = 1 OR insight_bucket(${createdAt}, 60::smallint)
      < (SELECT through FROM insight_hour_marks WHERE gate_id = ${gateId}::uuid)
  ) AS g`
  const histogram = (columns: readonly string[]) => sql.unsafe(`ARRAY[${columns.join(', ')}]`)
  const rows = await sql`
    WITH actual AS (
      SELECT g.grain, insight_bucket(r.created_at, g.grain) AS bucket, r.method, r.template,
        count(*) AS n, count(*) FILTER (WHERE r.has_diff) AS h,
        count(*) FILTER (WHERE k.kind = 'diff') AS d, count(*) FILTER (WHERE k.kind = 'error') AS e
      FROM requests r CROSS JOIN LATERAL ${grains(sql`r.created_at`)}
        LEFT JOIN insight_signatures k ON k.gate_id = r.gate_id AND k.id = r.signature_id
      WHERE r.gate_id = ${gateId} AND r.template IS NOT NULL
      GROUP BY 1, 2, 3, 4
    ), rolled AS (
      SELECT grain, bucket, method, template, sum(request_count) AS n, sum(has_diff_count) AS h,
        sum(diff_count) AS d, sum(error_count) AS e
      FROM endpoint_rollups WHERE gate_id = ${gateId} GROUP BY 1, 2, 3, 4
    )
    SELECT 'endpoint' AS what, coalesce(a.grain, r.grain) AS grain, coalesce(a.bucket, r.bucket) AS bucket,
      coalesce(a.method, r.method) || ' ' || coalesce(a.template, r.template) AS key,
      json_build_array(r.n, r.h, r.d, r.e)::text AS rolled, json_build_array(a.n, a.h, a.d, a.e)::text AS actual
    FROM actual a FULL JOIN rolled r
      ON r.grain = a.grain AND r.bucket = a.bucket AND r.method = a.method AND r.template = a.template
    WHERE coalesce(r.n, 0) <> coalesce(a.n, 0) OR coalesce(r.h, 0) <> coalesce(a.h, 0)
      OR coalesce(r.d, 0) <> coalesce(a.d, 0) OR coalesce(r.e, 0) <> coalesce(a.e, 0)
    UNION ALL
    SELECT 'latency', coalesce(a.grain, r.grain), coalesce(a.bucket, r.bucket),
      coalesce(a.key, r.key), r.n::text, a.n::text
    FROM (
      SELECT g.grain, insight_bucket(created_at, g.grain) AS bucket,
        method || ' ' || template || ' ' || side || ' ' || lb AS key, count(*) AS n
      FROM (
        SELECT created_at, method, template, 'live' AS side, latency_bucket(live_latency_ms) AS lb
        FROM requests WHERE gate_id = ${gateId} AND template IS NOT NULL
        UNION ALL
        SELECT created_at, method, template, 'shadow', latency_bucket(shadow_latency_ms)
        FROM requests WHERE gate_id = ${gateId} AND template IS NOT NULL
      ) AS x CROSS JOIN LATERAL ${grains(sql`x.created_at`)}
      GROUP BY 1, 2, 3
    ) AS a FULL JOIN (
      SELECT grain, bucket, key, sum(c) AS n FROM (
        SELECT grain, bucket, method || ' ' || template || ' live ' || (i - 1) AS key, c
        FROM endpoint_rollups, unnest(${histogram(LIVE_HISTOGRAM)}) WITH ORDINALITY AS u (c, i) WHERE gate_id = ${gateId}
        UNION ALL
        SELECT grain, bucket, method || ' ' || template || ' shadow ' || (i - 1), c
        FROM endpoint_rollups, unnest(${histogram(SHADOW_HISTOGRAM)}) WITH ORDINALITY AS u (c, i) WHERE gate_id = ${gateId}
      ) AS y GROUP BY 1, 2, 3 HAVING sum(c) <> 0
    ) AS r ON r.grain = a.grain AND r.bucket = a.bucket AND r.key = a.key
    WHERE coalesce(r.n, 0) <> coalesce(a.n, 0)
    UNION ALL
    SELECT 'signature', coalesce(a.grain, r.grain), coalesce(a.bucket, r.bucket), coalesce(a.id, r.id), r.n::text, a.n::text
    FROM (
      SELECT g.grain, insight_bucket(created_at, g.grain) AS bucket, signature_id AS id, count(*) AS n
      FROM requests CROSS JOIN LATERAL ${grains(sql`requests.created_at`)}
      WHERE gate_id = ${gateId} AND signature_id IS NOT NULL AND template IS NOT NULL
      GROUP BY 1, 2, 3
    ) AS a FULL JOIN (
      SELECT grain, bucket, signature_id AS id, sum(capture_count) AS n
      FROM signature_rollups WHERE gate_id = ${gateId} GROUP BY 1, 2, 3
    ) AS r ON r.grain = a.grain AND r.bucket = a.bucket AND r.id = a.id
    WHERE coalesce(r.n, 0) <> coalesce(a.n, 0)`
  return [...rows]
}
