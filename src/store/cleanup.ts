import type postgres from 'postgres'
import { parseDuration } from '../config/duration.ts'
import { inTransaction } from './reserved-transaction.ts'
import { toNumber } from './rows.ts'

/**
 * The pg_try_advisory_lock key of the cleanup, so that one API replica
 * cleans at a time (DESIGN.md "API behaviour"). Distinct from the migrator's.
 */
export const CLEANUP_LOCK_KEY = 7_311_002

export interface CleanupOptions {
  /** The global retention floor (SVC_APP_RETENTION), in ms; must be positive. */
  readonly floorMs: number
  /** Most requests deleted per statement, so that no run holds long locks. */
  readonly batchSize: number
  /** The clock to measure ages against. @default the database's now() */
  readonly now?: Date
}

/** Clients with a run in progress in this process (PGlite's single session cannot exclude itself by lock). */
const running = new WeakSet<postgres.Sql>()

/**
 * Runs on one reserved connection (the one holding the lock). Deletes the
 * requests older than max(the gate's retention, the floor), gate
 * by gate, in batches of at most `batchSize`, keeping the rollups and the
 * gates' counters exact (same transaction as each batch). Returns how many
 * requests were deleted; returns 0 at once when another run holds the
 * advisory lock (another replica) or runs in this process. A retention that
 * is empty, invalid or below the floor means the floor.
 */
export async function runCleanup(sql: postgres.Sql, options: CleanupOptions): Promise<number> {
  if (!(options.floorMs > 0)) throw new RangeError(`the retention floor must be positive, got ${options.floorMs} ms`)
  if (!(options.batchSize >= 1)) throw new RangeError(`the batch size must be at least 1, got ${options.batchSize}`)
  if (running.has(sql)) return 0
  running.add(sql)
  try {
    const conn = await sql.reserve()
    try {
      const [lock] = await conn<{ locked: boolean }[]>`SELECT pg_try_advisory_lock(${CLEANUP_LOCK_KEY}) AS locked`
      if (!lock?.locked) return 0
      try {
        return await cleanAll(conn, options)
      } finally {
        await conn`SELECT pg_advisory_unlock(${CLEANUP_LOCK_KEY})`
      }
    } finally {
      conn.release()
    }
  } finally {
    running.delete(sql)
  }
}

async function cleanAll(sql: postgres.ReservedSql, options: CleanupOptions): Promise<number> {
  const [clock] = await sql<{ now: Date }[]>`SELECT coalesce(${options.now ?? null}::timestamptz, now()) AS now`
  const now = clock!.now.getTime()
  const gates = await sql<{ id: string; retention: string }[]>`SELECT id, retention FROM gates ORDER BY id`
  let deleted = 0
  for (const gate of gates) {
    const keepMs = Math.max(parseDuration(gate.retention) ?? options.floorMs, options.floorMs)
    const cutoff = new Date(now - keepMs)
    for (;;) {
      const n = await deleteBatch(sql, gate.id, cutoff, options.batchSize)
      deleted += n
      if (n < options.batchSize) break
    }
    // Minutes whose every request is gone carry nothing: drop them.
    await sql`DELETE FROM request_rollups WHERE gate_id = ${gate.id} AND request_count = 0 AND diff_count = 0`
  }
  return deleted
}

/**
 * One batch: the oldest requests of the gate before `cutoff`, with their
 * rollup minutes and the gate's counter decremented in the same statement.
 * The gate row is key-share locked first: a concurrent deleteGate then
 * either waits for this batch or has already removed everything.
 */
async function deleteBatch(tx: postgres.ReservedSql, gateId: string, cutoff: Date, batchSize: number): Promise<number> {
  return inTransaction(tx, async () => {
    const gate = await tx`SELECT 1 FROM gates WHERE id = ${gateId} FOR KEY SHARE`
    if (gate.length === 0) return 0
    const [row] = await tx<{ deleted: string }[]>`
      WITH victims AS (
        SELECT id FROM requests
        WHERE gate_id = ${gateId} AND created_at < ${cutoff}
        ORDER BY created_at
        LIMIT ${batchSize}
      ),
      del AS (
        DELETE FROM requests r USING victims v WHERE r.id = v.id
        RETURNING r.created_at, r.method, r.has_diff
      ),
      agg AS (
        SELECT request_bucket(created_at) AS bucket, method,
          count(*) AS n, count(*) FILTER (WHERE has_diff) AS d
        FROM del GROUP BY 1, 2
      ),
      rollup AS (
        UPDATE request_rollups r
        SET request_count = r.request_count - agg.n, diff_count = r.diff_count - agg.d
        FROM agg
        WHERE r.gate_id = ${gateId} AND r.bucket = agg.bucket AND r.method = agg.method
        RETURNING 1
      ),
      counter AS (
        UPDATE gate_counters c SET request_count = c.request_count - (SELECT count(*) FROM del)
        WHERE c.gate_id = ${gateId} AND (SELECT count(*) FROM rollup) >= 0
      )
      SELECT count(*) AS deleted FROM del`
    return toNumber(row?.deleted)
  })
}
