import type postgres from 'postgres'
import { rollupsInWindow } from './insight-window.ts'

type Sql = postgres.Sql
type Fragment = postgres.PendingQuery<postgres.Row[]>

/**
 * The CTEs of a per-field read over the window of a CTE `w`
 * (insight-window.ts), ending in `fields`: one row per (method, template,
 * op, path) of the diff signatures counted in the window, with
 *
 * - `n`: captures whose diff holds it (the sum over the diff signatures
 *   that hold it, as listFields has always counted);
 * - `requests`, `noise_checks`: the endpoint's captures and noise checks;
 * - `noise_n`: noisy captures whose noise patch holds it (the sum over
 *   the noise signatures that hold it, from noise_rollups).
 *
 * `filter` narrows the signature definitions (`s`) and endpoint rollups
 * (`r`) alike: a function of the alias.
 */
export function fieldCountSteps(sql: Sql, gateId: string, filter: (alias: string) => Fragment): Fragment {
  return sql`
    diff_counts AS (${signatureCounts(sql, gateId, 'signature_rollups')}),
    noise_counts AS (${signatureCounts(sql, gateId, 'noise_rollups')}),
    diff_fields AS (${opsCounted(sql, gateId, 'diff_counts', filter)}),
    noise_fields AS (${opsCounted(sql, gateId, 'noise_counts', filter)}),
    endpoint_counts AS (
      SELECT r.method, r.template, sum(r.request_count) AS requests, sum(r.noise_checks) AS noise_checks
      FROM (${rollupsInWindow(sql, 'endpoint_rollups', gateId, sql`r.method, r.template, r.request_count, r.noise_checks`, filter('r'))}) AS r
      GROUP BY r.method, r.template
    ),
    fields AS (
      SELECT f.method, f.template, f.op, f.path, f.n,
        coalesce(e.requests, 0) AS requests, coalesce(e.noise_checks, 0) AS noise_checks, coalesce(nf.n, 0) AS noise_n
      FROM diff_fields f
        LEFT JOIN endpoint_counts e ON e.method = f.method AND e.template = f.template
        LEFT JOIN noise_fields nf ON nf.method = f.method AND nf.template = f.template AND nf.op = f.op AND nf.path = f.path
    )`
}

/** Per signature id, its captures in the window `w` of a signature-keyed rollup table. */
function signatureCounts(sql: Sql, gateId: string, table: 'signature_rollups' | 'noise_rollups'): Fragment {
  return sql`
    SELECT r.signature_id, sum(r.capture_count) AS n
    FROM (${rollupsInWindow(sql, table, gateId, sql`r.signature_id, r.capture_count`)}) AS r
    GROUP BY r.signature_id
    HAVING sum(r.capture_count) > 0`
}

/** The (op, path) of the diff signatures counted in `counts`, summed per endpoint. */
function opsCounted(sql: Sql, gateId: string, counts: string, filter: (alias: string) => Fragment): Fragment {
  return sql`
    SELECT s.method, s.template, o.op COLLATE "C" AS op, o.path COLLATE "C" AS path, sum(c.n) AS n
    FROM ${sql(counts)} c JOIN insight_signatures s ON s.gate_id = ${gateId} AND s.id = c.signature_id AND s.kind = 'diff'
      CROSS JOIN LATERAL jsonb_to_recordset(s.ops) AS o (op text, path text)
    WHERE true ${filter('s')}
    GROUP BY 1, 2, 3, 4`
}
