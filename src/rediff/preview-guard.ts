import type postgres from 'postgres'
import { ConflictError } from '../errors/app-error.ts'

/**
 * The pg_try_advisory_lock class of previews (the gate's hash is the
 * other key), distinct from the migrator's and the cleanup's.
 */
export const PREVIEW_LOCK_CLASS = 7_311_003

/**
 * At most one diff_config preview per gate at a time (docs/insights.md
 * "Preview"): across API replicas and workers by an advisory lock held on
 * the reserved connection the preview reads through (released with it,
 * even when the process dies), and within a process by a set of gates
 * (PGlite's single session cannot exclude itself by lock). A second
 * preview of the same gate is a ConflictError (409), not a wait: the
 * hub previews as the user edits, and the newest edit should ask again
 * rather than queue behind a stale one.
 */
export class PreviewGuard {
  private readonly running = new Set<string>()

  constructor(private readonly sql: postgres.Sql) {}

  async run<T>(gateId: string, fn: (conn: postgres.ReservedSql) => Promise<T>): Promise<T> {
    if (this.running.has(gateId)) throw busy()
    this.running.add(gateId)
    try {
      const conn = await this.sql.reserve()
      try {
        const [lock] = await conn<{ locked: boolean }[]>`
          SELECT pg_try_advisory_lock(${PREVIEW_LOCK_CLASS}, hashtext(${gateId}::text)) AS locked`
        if (!lock?.locked) throw busy()
        try {
          return await fn(conn)
        } finally {
          await conn`SELECT pg_advisory_unlock(${PREVIEW_LOCK_CLASS}, hashtext(${gateId}::text))`
        }
      } finally {
        conn.release()
      }
    } finally {
      this.running.delete(gateId)
    }
  }
}

function busy(): ConflictError {
  return new ConflictError('a preview of this gate is already running; ask again when it has answered (one preview per gate at a time)')
}
