import type postgres from 'postgres'
import { parseDuration } from '../config/duration.ts'
import { COMPACT_AFTER_MS, foldShards } from './compact-rollups.ts'
import { dropEmptyInsightRows, insightDeleteSteps } from './insight-rollups.ts'
import { inTransaction } from './reserved-transaction.ts'
import { toNumber } from './rows.ts'

/**
 * The pg_try_advisory_lock key of the cleanup (and of rollup compaction), so
 * that one API replica maintains at a time (docs/storage.md "Cleanup").
 * Distinct from the migrator's.
 */
export const CLEANUP_LOCK_KEY = 7_311_002

export interface CleanupOptions {
  /** The global retention floor (SVC_APP_RETENTION), in ms; must be positive. */
  readonly floorMs: number
  /** Most requests deleted per statement, so that no run holds long locks. */
  readonly batchSize: number
  /** The clock to measure ages against. @default the database's now() */
  readonly now?: Date
  /**
   * Called with a gate whose cleanup failed; the other gates are still
   * cleaned. @default every failure is thrown at the end of the run, as
   * one AggregateError, after every other gate was cleaned
   */
  readonly onGateError?: (gateId: string, error: unknown) => void
}

/** Clients with a run in progress in this process (PGlite's single session cannot exclude itself by lock). */
const running = new WeakSet<postgres.Sql>()

/**
 * The retention cleanup. Deletes the requests older than max(the gate's
 * retention, the floor), gate by gate, in batches of at most `batchSize`,
 * each batch in a transaction that also takes its requests out of the
 * rollups and the gate's counter, so 24 h stats and list totals stay exact
 * (pruned requests no longer count). Also folds rollup shards (see
 * compactRollups). A retention that is empty, invalid or below the floor
 * means the floor; one too long to be taken from a date (stored before
 * retentions had an upper bound) keeps everything. Each gate is cleaned on
 * its own: one gate's failure is handed to `onGateError` and the run goes
 * on with the next.
 *
 * One run at a time across replicas: returns 0 at once when another holds
 * the advisory lock, or when a run is in progress in this process. Returns
 * the number of requests deleted.
 */
export async function runCleanup(sql: postgres.Sql, options: CleanupOptions): Promise<number> {
  if (!(options.floorMs > 0)) throw new RangeError(`the retention floor must be positive, got ${options.floorMs} ms`)
  if (!(options.batchSize >= 1)) throw new RangeError(`the batch size must be at least 1, got ${options.batchSize}`)
  return (
    (await exclusively(sql, async (conn) => {
      const now = await clock(conn, options.now)
      await foldShards(conn, new Date(now - COMPACT_AFTER_MS))
      return cleanAll(conn, now, options)
    })) ?? 0
  )
}

/**
 * Folds the rollup shards of minutes older than five minutes, under the
 * cleanup's lock (returns 0 when it is taken). runCleanup does it on every
 * run; calling this more often (say every few minutes) keeps 24 h stats of
 * very busy gates at about one rollup row per minute and method. Returns the
 * number of shard rows folded.
 */
export async function compactRollups(sql: postgres.Sql, options: { now?: Date } = {}): Promise<number> {
  return (
    (await exclusively(sql, async (conn) => foldShards(conn, new Date((await clock(conn, options.now)) - COMPACT_AFTER_MS)))) ?? 0
  )
}

/**
 * Runs `fn` on one reserved connection holding the cleanup's advisory lock
 * (so it works with a pool of one); undefined when the lock or this
 * process's guard is taken.
 */
async function exclusively<T>(sql: postgres.Sql, fn: (conn: postgres.ReservedSql) => Promise<T>): Promise<T | undefined> {
  if (running.has(sql)) return undefined
  running.add(sql)
  try {
    const conn = await sql.reserve()
    try {
      const [lock] = await conn<{ locked: boolean }[]>`SELECT pg_try_advisory_lock(${CLEANUP_LOCK_KEY}) AS locked`
      if (!lock?.locked) return undefined
      try {
        return await fn(conn)
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

async function clock(conn: postgres.ReservedSql, now: Date | undefined): Promise<number> {
  const [row] = await conn<{ now: Date }[]>`SELECT coalesce(${now ?? null}::timestamptz, now()) AS now`
  return row!.now.getTime()
}

async function cleanAll(conn: postgres.ReservedSql, now: number, options: CleanupOptions): Promise<number> {
  const gates = await conn<{ id: string }[]>`SELECT id FROM gates ORDER BY id`
  let deleted = 0
  const failures: unknown[] = []
  for (const gate of gates) {
    try {
      deleted += await cleanGate(conn, gate, now, options)
    } catch (error) {
      if (options.onGateError) options.onGateError(gate.id, error)
      else failures.push(new Error(`cleanup of gate ${gate.id} failed`, { cause: error }))
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, `cleanup failed for ${failures.length} gate(s)`)
  return deleted
}

/** The earliest created_at the API stores (src/text/date-time.ts). */
const EARLIEST_CREATED_AT = Date.UTC(1000, 0, 1)

async function cleanGate(conn: postgres.ReservedSql, gate: { id: string }, now: number, options: CleanupOptions): Promise<number> {
  let deleted = 0
  for (;;) {
    const n = await deleteBatch(conn, gate.id, now, options)
    deleted += n
    if (n < options.batchSize) break
  }
  // A rollup row that sums to nothing carries nothing: dropping it never changes a sum.
  await conn`DELETE FROM request_rollups WHERE gate_id = ${gate.id} AND request_count = 0 AND diff_count = 0`
  await dropEmptyInsightRows(conn, gate.id)
  await foldPathRollups(conn, gate.id)
  return deleted
}

/**
 * Folds a gate's path rollup shards into shard 0 and drops the (path,
 * method) rows that sum to nothing, so that a path seen once and pruned is
 * not scanned by every later path filter. Path rollups have no minute to
 * wait for (unlike foldShards), so ingest may be writing the very rows
 * being folded: they are locked in key order first, as ingest locks them,
 * and then moved with the counts they hold. Shard 0 is written by the
 * cleanup alone, so a zero there is safe to delete.
 */
async function foldPathRollups(conn: postgres.ReservedSql, gateId: string): Promise<void> {
  await inTransaction(conn, async () => {
    // The gate first: a concurrent deleteGate waits for this fold, or has removed everything.
    const gate = await conn`SELECT 1 FROM gates WHERE id = ${gateId} FOR KEY SHARE`
    if (gate.length === 0) return
    await conn`
      SELECT 1 FROM request_path_rollups
      WHERE gate_id = ${gateId} AND shard <> 0
      ORDER BY md5(path), method, shard
      FOR UPDATE`
    await conn`
      WITH moved AS (
        DELETE FROM request_path_rollups
        WHERE gate_id = ${gateId} AND shard <> 0
        RETURNING path, method, request_count, diff_count
      )
      INSERT INTO request_path_rollups AS p (gate_id, path, method, shard, request_count, diff_count)
      SELECT ${gateId}::uuid, path, method, 0, sum(request_count), sum(diff_count)
      FROM moved GROUP BY path, method
      ORDER BY md5(path), method
      ON CONFLICT (gate_id, md5(path), method, shard) DO UPDATE
        SET request_count = p.request_count + excluded.request_count,
            diff_count = p.diff_count + excluded.diff_count`
    await conn`
      DELETE FROM request_path_rollups
      WHERE gate_id = ${gateId} AND shard = 0 AND request_count = 0 AND diff_count = 0`
  })
}

/**
 * The created_at before which a gate's captures go: max(its retention, the
 * floor) before `now`; undefined when that is before the year 1000 (or an
 * Invalid Date), for nothing stored is that old.
 */
function cutoffOf(retention: string, now: number, floorMs: number): Date | undefined {
  const cutoff = new Date(now - Math.max(parseDuration(retention) ?? floorMs, floorMs))
  return cutoff.getTime() >= EARLIEST_CREATED_AT ? cutoff : undefined
}

/**
 * One batch: the gate's oldest requests before its cutoff, taken out of
 * the rollups, the path rollups and the counter (shard 0, which ingest
 * never writes) in the same statement. The gate row is key-share locked
 * first: a concurrent deleteGate then waits for this batch, or has already
 * removed everything. The retention is read with it, batch by batch: read
 * once per run, a raised retention went on deleting, until the gate was
 * through, what it now keeps; now at most the one batch already under way
 * when it was raised goes by the old one. A share lock would have made
 * even that wait, but held every gate update and the admission of every
 * new template or signature (insight-catalog.ts) for each batch. Payloads
 * go by ON DELETE CASCADE.
 */
async function deleteBatch(conn: postgres.ReservedSql, gateId: string, now: number, options: CleanupOptions): Promise<number> {
  const batchSize = options.batchSize
  return inTransaction(conn, async () => {
    const [gate] = await conn<{ retention: string }[]>`SELECT retention FROM gates WHERE id = ${gateId} FOR KEY SHARE`
    if (gate === undefined) return 0
    const cutoff = cutoffOf(gate.retention, now, options.floorMs)
    if (cutoff === undefined) return 0
    const [row] = await conn<{ deleted: string }[]>`
      WITH victims AS (
        SELECT id FROM requests
        WHERE gate_id = ${gateId} AND created_at < ${cutoff}
        ORDER BY created_at
        LIMIT ${batchSize}
      ),
      del AS (
        DELETE FROM requests r USING victims v WHERE r.id = v.id
        RETURNING r.created_at, r.method, r.path, r.has_diff,
          r.gate_id, r.id, r.template, r.signature_id, r.live_latency_ms, r.shadow_latency_ms,
          r.noise_result, r.noise_signature_id
      ),
      rollup AS (
        INSERT INTO request_rollups AS r (gate_id, bucket, method, shard, request_count, diff_count)
        SELECT ${gateId}::uuid, request_bucket(created_at), method, 0,
          -count(*), -count(*) FILTER (WHERE has_diff)
        FROM del GROUP BY 2, 3
        ON CONFLICT (gate_id, bucket, method, shard) DO UPDATE
          SET request_count = r.request_count + excluded.request_count,
              diff_count = r.diff_count + excluded.diff_count
        RETURNING 1
      ),
      path_rollup AS (
        INSERT INTO request_path_rollups AS p (gate_id, path, method, shard, request_count, diff_count)
        SELECT ${gateId}::uuid, g.path, g.method, 0, -g.n, -g.d
        FROM (SELECT path, method, count(*) AS n, count(*) FILTER (WHERE has_diff) AS d FROM del GROUP BY 1, 2) g,
          (SELECT count(*) AS n FROM rollup) done
        WHERE done.n > 0
        ORDER BY md5(g.path), g.method
        ON CONFLICT (gate_id, md5(path), method, shard) DO UPDATE
          SET request_count = p.request_count + excluded.request_count,
              diff_count = p.diff_count + excluded.diff_count
        RETURNING 1
      ),
      ${insightDeleteSteps(conn, 'del', 'path_rollup')},
      counter AS (
        INSERT INTO gate_counters AS c (gate_id, shard, request_count)
        SELECT ${gateId}::uuid, 0, -(SELECT count(*) FROM del)
        WHERE (SELECT count(*) FROM path_rollup) > 0 AND (SELECT count(*) FROM signature_rollup) >= 0
        ON CONFLICT (gate_id, shard) DO UPDATE SET request_count = c.request_count + excluded.request_count
      )
      SELECT count(*) AS deleted FROM del`
    return toNumber(row?.deleted)
  })
}
