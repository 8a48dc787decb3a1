import type postgres from 'postgres'
import type { InsightWindow } from './insight-queries.ts'

type Sql = postgres.Sql
type Fragment = postgres.PendingQuery<postgres.Row[]>

/**
 * The bounds of a gate's window (InsightWindow) in rollup buckets, as one
 * row: the minutes [mf, mt) it covers, split into whole hours [h_from,
 * h_to), read from the hour rows, and the minutes around them, [mf,
 * m1_to) and [m2_from, mt), read from the minute rows. Hour rows exist only
 * before the gate's mark (fold-insight-hours.ts), so the whole hours end
 * there at the latest. A window without a whole hour before the mark is
 * minutes only. So a day is at most 24 hour rows and, with compaction
 * running, about two hours of minute rows per endpoint or signature
 * (docs/storage.md "Insight rollups").
 */
export function windowBounds(sql: Sql, gateId: string, window: InsightWindow): Fragment {
  return sql`
    SELECT mf, mt,
      CASE WHEN hf < ht THEN hf ELSE mt END AS m1_to,
      hf AS h_from,
      CASE WHEN hf < ht THEN ht ELSE hf END AS h_to,
      CASE WHEN hf < ht THEN ht ELSE mt END AS m2_from
    FROM (
      SELECT mf, mt, insight_bucket(mf + interval '59 minutes', 60::smallint) AS hf,
        least(insight_bucket(mt, 60::smallint), ${hourMark(sql, gateId)}) AS ht
      FROM (
        SELECT insight_bucket(lo, 1::smallint) AS mf,
          CASE WHEN hi = 'infinity' THEN hi ELSE insight_bucket(hi, 1::smallint) + interval '1 minute' END AS mt
        FROM (
          SELECT coalesce(${window.from ?? null}::timestamptz, coalesce(${window.to ?? null}::timestamptz, now()) - interval '24 hours') AS lo,
            coalesce(${window.to ?? null}::timestamptz, 'infinity') AS hi
        ) AS p
      ) AS q
    ) AS b`
}

/**
 * A gate's mark (fold-insight-hours.ts) as a timestamptz expression: its
 * hour rows cover the hours before it, minutes everything else;
 * '-infinity' (no hour rows) when it has none yet.
 */
export function hourMark(sql: Sql, gateId: string): Fragment {
  return sql`coalesce((SELECT through FROM insight_hour_marks WHERE gate_id = ${gateId}::uuid), '-infinity'::timestamptz)`
}

/**
 * The rollup rows of a gate in the window of a CTE `w` (windowBounds), as
 * three index range scans: minutes before the first whole hour, the
 * whole hours, minutes after the last one.
 */
export function rollupsInWindow(
  sql: Sql,
  table: 'endpoint_rollups' | 'signature_rollups' | 'noise_rollups',
  gateId: string,
  columns: Fragment,
  filter: Fragment = sql``,
): Fragment {
  const from = sql`FROM ${sql(table)} AS r, w WHERE r.gate_id = ${gateId} ${filter}`
  return sql`
    SELECT ${columns} ${from} AND r.grain = 1 AND r.bucket >= w.mf AND r.bucket < w.m1_to
    UNION ALL
    SELECT ${columns} ${from} AND r.grain = 60 AND r.bucket >= w.h_from AND r.bucket < w.h_to
    UNION ALL
    SELECT ${columns} ${from} AND r.grain = 1 AND r.bucket >= w.m2_from AND r.bucket < w.mt`
}
