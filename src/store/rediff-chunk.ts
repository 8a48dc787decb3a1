import type postgres from 'postgres'
import { insightRollupSteps } from './insight-rollups.ts'
import { jsonb, storableJson, type NoiseResult, type PatchOp } from './rows.ts'

/** A capture's comparisons made again: what its row, payload and rollups become. */
export interface RediffItem {
  readonly id: string
  readonly has_diff: boolean
  readonly diff: PatchOp[]
  readonly signature_id: string | null
  /** The kind of its signature (`diff`, `error`); null without one. */
  readonly kind: 'diff' | 'error' | null
  readonly noise_result: NoiseResult | null
  readonly noise_signature_id: string | null
  /** The noise patch; null without a check, or when it failed. */
  readonly noise: PatchOp[] | null
}

/** Where a job is and who runs it, written with each chunk. */
export interface ChunkProgress {
  readonly jobId: string
  readonly owner: string
  /** The last capture of the chunk (created_at text, id). */
  readonly cursor: { readonly at: string; readonly id: string }
  /** Captures the chunk covered. */
  readonly count: number
}

/**
 * Writes one chunk of a re-diff job in one transaction (docs/storage.md
 * "Jobs"), or nothing when the job is no longer this process's to run:
 *
 * 1. the gate, key-share locked first (as the cleanup does: a deleteGate
 *    waits, or has removed everything, job included), then the job's row,
 *    which must still be running and owned by `owner`: two processes can
 *    never write one job's chunks at once, and a cancelled or taken-over
 *    job stops at its next chunk;
 * 2. one statement: the captures' rows locked in (created_at, id) order,
 *    their new has_diff, signature and noise columns where they changed,
 *    the payload's diff and noise patch where they changed, and every
 *    rollup moved by the change: each changed capture's old values out
 *    and its new ones in (a signed count per row), request_rollups and
 *    request_path_rollups (diff counts), then the endpoint, noise and
 *    signature rollups, in the order ingest locks them, into this
 *    connection's ingest shard. Old values are read in the statement, so
 *    a capture pruned meanwhile is neither updated nor counted;
 * 3. the job's progress: done, cursor, heartbeat.
 *
 * Returns the captures whose row changed, or undefined when the job was
 * not ours.
 */
export async function applyRediffChunk(
  sql: postgres.Sql,
  gateId: string,
  items: readonly RediffItem[],
  progress: ChunkProgress,
): Promise<number | undefined> {
  return sql.begin(async (tx) => {
    const gate = await tx`SELECT 1 FROM gates WHERE id = ${gateId} FOR KEY SHARE`
    if (gate.length === 0) return undefined
    const job = await tx`
      SELECT 1 FROM gate_jobs WHERE id = ${progress.jobId} AND owner = ${progress.owner} AND state = 'running' FOR UPDATE`
    if (job.length === 0) return undefined
    const changed = items.length === 0 ? 0 : await rediffStatement(tx, gateId, items)
    await tx`
      UPDATE gate_jobs SET done = done + ${progress.count}, cursor_at = ${progress.cursor.at}::text::timestamptz,
        cursor_id = ${progress.cursor.id}::uuid, heartbeat_at = now()
      WHERE id = ${progress.jobId}`
    return changed
  }) as Promise<number | undefined>
}

async function rediffStatement(tx: postgres.TransactionSql, gateId: string, items: readonly RediffItem[]): Promise<number> {
  const values = items
    .map(
      (item) => tx`(${item.id}::uuid, ${item.has_diff}::boolean, ${jsonb(tx as unknown as postgres.Sql, storableJson(item.diff))}::jsonb,
        ${item.signature_id}::text, ${item.kind}::text, ${item.noise_result}::text, ${item.noise_signature_id}::text,
        ${item.noise === null ? null : jsonb(tx as unknown as postgres.Sql, storableJson(item.noise))}::jsonb)`,
    )
    .reduce((list, row) => tx`${list}, ${row}`)
  const columns = tx`gate_id, id, created_at, method, path, template, has_diff, signature_id, noise_result, noise_signature_id,
    live_latency_ms, shadow_latency_ms`
  const [row] = await tx<{ changed: string }[]>`
    WITH v (id, has_diff, diff, signature_id, kind, noise_result, noise_signature_id, noise) AS (VALUES ${values}),
    old AS (
      SELECT ${columns} FROM requests r
      WHERE r.id IN (SELECT id FROM v) AND r.gate_id = ${gateId}
      ORDER BY r.created_at, r.id
      FOR UPDATE
    ),
    upd AS (
      UPDATE requests r
      SET has_diff = v.has_diff, signature_id = v.signature_id, noise_result = v.noise_result, noise_signature_id = v.noise_signature_id
      FROM v, (SELECT count(*) AS n FROM old) AS locked
      WHERE r.id = v.id AND r.gate_id = ${gateId} AND locked.n >= 0
        AND (r.has_diff, r.signature_id, r.noise_result, r.noise_signature_id)
          IS DISTINCT FROM (v.has_diff, v.signature_id, v.noise_result, v.noise_signature_id)
      RETURNING r.gate_id, r.id, r.created_at, r.method, r.path, r.template, r.has_diff, r.signature_id, r.noise_result,
        r.noise_signature_id, r.live_latency_ms, r.shadow_latency_ms, v.kind
    ),
    payload AS (
      UPDATE request_payloads p SET diff = v.diff, noise = v.noise
      FROM v
      WHERE p.request_id = v.id AND EXISTS (SELECT 1 FROM old WHERE old.id = v.id)
        AND (p.diff, p.noise) IS DISTINCT FROM (v.diff, v.noise)
      RETURNING 1
    ),
    changed AS (
      SELECT o.gate_id, o.id, o.created_at, o.method, o.path, o.template, o.has_diff, o.signature_id, o.noise_result,
        o.noise_signature_id, o.live_latency_ms, o.shadow_latency_ms, k.kind, -1 AS w
      FROM old o JOIN upd u ON u.id = o.id
        LEFT JOIN insight_signatures k ON k.gate_id = o.gate_id AND k.id = o.signature_id
      UNION ALL
      SELECT u.gate_id, u.id, u.created_at, u.method, u.path, u.template, u.has_diff, u.signature_id, u.noise_result,
        u.noise_signature_id, u.live_latency_ms, u.shadow_latency_ms, u.kind, 1
      FROM upd u
    ),
    rollup AS (
      INSERT INTO request_rollups AS r (gate_id, bucket, method, shard, request_count, diff_count)
      SELECT gate_id, request_bucket(created_at), method, ingest_shard(), 0, sum(w) FILTER (WHERE has_diff)
      FROM changed
      GROUP BY gate_id, request_bucket(created_at), method
      HAVING coalesce(sum(w) FILTER (WHERE has_diff), 0) <> 0
      ORDER BY gate_id, request_bucket(created_at), method
      ON CONFLICT (gate_id, bucket, method, shard) DO UPDATE SET diff_count = r.diff_count + excluded.diff_count
      RETURNING r.gate_id
    ),
    path_rollup AS (
      INSERT INTO request_path_rollups AS p (gate_id, path, method, shard, request_count, diff_count)
      SELECT g.gate_id, g.path, g.method, ingest_shard(), 0, g.d
      FROM (SELECT gate_id, path, method, sum(w) FILTER (WHERE has_diff) AS d FROM changed GROUP BY gate_id, path, method) g,
        (SELECT count(*) AS n FROM rollup) done
      WHERE done.n >= 0 AND coalesce(g.d, 0) <> 0
      ORDER BY g.gate_id, md5(g.path), g.method
      ON CONFLICT (gate_id, md5(path), method, shard) DO UPDATE SET diff_count = p.diff_count + excluded.diff_count
      RETURNING p.gate_id
    ),
    ${insightRollupSteps(tx as unknown as postgres.Sql, 'changed', { sign: 'row', shard: 'ingest', after: 'path_rollup' })}
    SELECT (SELECT count(*) FROM upd) AS changed, (SELECT count(*) FROM payload) AS payloads,
      (SELECT count(*) FROM signature_rollup) AS signatures`
  return Number(row?.changed ?? 0)
}
