import type postgres from 'postgres'
import { isoString, toNumber, type GateStats } from './rows.ts'

/** getGlobalStats's answer (docs/reference/api.md "getGlobalStats"). */
export interface GlobalStats {
  total_gates: number
  total_requests_24h: number
  total_diff_rate: number
}

/** The columns withGateStats adds to each row. */
export interface GateStatsColumns {
  request_count_24h: string | number
  diff_count_24h: string | number
  last_active: Date | null
}

type Fragment = postgres.PendingQuery<postgres.Row[]>

/**
 * The 24 h window as a one-row relation: `ws` = now - 24 h, and `full_from`
 * = the first whole rollup minute at or after it. Exact counts over
 * [ws, +inf) are the rollups from `full_from` on plus the raw rows in
 * [ws, full_from): at most one partial minute, read through
 * requests_gate_created_idx. Captures dated in the future count too, so
 * that a proxy's clock running ahead hides nothing.
 *
 * `now` defaults to the database's clock.
 */
export function statsWindow(sql: postgres.Sql, now?: Date): Fragment {
  return sql`
    SELECT ws, request_bucket(ws + interval '1 minute' - interval '1 microsecond') AS full_from
    FROM (SELECT coalesce(${now ?? null}::timestamptz, now()) - interval '24 hours' AS ws) AS x`
}

/**
 * Adds GateStatsColumns to every row of `source` (which must have the gates'
 * `id`), for a whole page in one query: two index lookups per gate that was
 * active in the window, none for the others (the guard on last_active,
 * which is never older than the newest stored capture).
 */
export function withGateStats(sql: postgres.Sql, source: Fragment, orderBy: Fragment, now?: Date): Fragment {
  return sql`
    WITH w AS (${statsWindow(sql, now)}), src AS (${source})
    SELECT src.*,
      coalesce(b.request_count, 0) + coalesce(e.request_count, 0) AS request_count_24h,
      coalesce(b.diff_count, 0) + coalesce(e.diff_count, 0) AS diff_count_24h,
      c.last_active
    FROM src CROSS JOIN w
    LEFT JOIN LATERAL (SELECT max(last_active) AS last_active FROM gate_counters WHERE gate_id = src.id) c ON true
    LEFT JOIN LATERAL (
      SELECT sum(r.request_count) AS request_count, sum(r.diff_count) AS diff_count
      FROM request_rollups r
      WHERE c.last_active >= w.ws AND r.gate_id = src.id AND r.bucket >= w.full_from
    ) b ON true
    LEFT JOIN LATERAL (
      SELECT count(*) AS request_count, count(*) FILTER (WHERE q.has_diff) AS diff_count
      FROM requests q
      WHERE c.last_active >= w.ws AND q.gate_id = src.id AND q.created_at >= w.ws AND q.created_at < w.full_from
    ) e ON true
    ${orderBy}`
}

/** GateStatsColumns as GateStats (docs/reference/api.md "Gate"). */
export function toGateStats(row: GateStatsColumns): GateStats {
  const requests = toNumber(row.request_count_24h)
  const diffs = toNumber(row.diff_count_24h)
  return {
    request_count_24h: requests,
    diff_count_24h: diffs,
    diff_rate: requests === 0 ? 0 : diffs / requests,
    last_active: row.last_active === null ? null : isoString(row.last_active),
  }
}

export interface StatsStore {
  /** getGlobalStats: every gate, over the same 24 h window as GateStats. */
  globalStats(now?: Date): Promise<GlobalStats>
}

export function createStatsStore(sql: postgres.Sql): StatsStore {
  return {
    async globalStats(now) {
      const [row] = await sql<{ total_gates: string; requests: string; diffs: string }[]>`
        WITH w AS (${statsWindow(sql, now)})
        SELECT (SELECT count(*) FROM gates) AS total_gates,
          coalesce(sum(b.request_count), 0) + coalesce(sum(e.request_count), 0) AS requests,
          coalesce(sum(b.diff_count), 0) + coalesce(sum(e.diff_count), 0) AS diffs
        FROM (SELECT gate_id, max(last_active) AS last_active FROM gate_counters GROUP BY gate_id) c
        CROSS JOIN w
        CROSS JOIN LATERAL (
          SELECT sum(r.request_count) AS request_count, sum(r.diff_count) AS diff_count
          FROM request_rollups r
          WHERE r.gate_id = c.gate_id AND r.bucket >= w.full_from
        ) b
        CROSS JOIN LATERAL (
          SELECT count(*) AS request_count, count(*) FILTER (WHERE q.has_diff) AS diff_count
          FROM requests q
          WHERE q.gate_id = c.gate_id AND q.created_at >= w.ws AND q.created_at < w.full_from
        ) e
        WHERE c.last_active >= w.ws`
      const requests = toNumber(row?.requests)
      const diffs = toNumber(row?.diffs)
      return {
        total_gates: toNumber(row?.total_gates),
        total_requests_24h: requests,
        total_diff_rate: requests === 0 ? 0 : diffs / requests,
      }
    },
  }
}
