import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type postgres from 'postgres'
import { openDatabase } from './database.ts'
import { MigrationError } from './errors.ts'
import { backfillInsights } from './insight-backfill.ts'
import { inTransaction } from './reserved-transaction.ts'

/** Where the service's migrations live: `sql/` at the repository root. */
export const MIGRATIONS_DIR = resolve(import.meta.dir, '../../sql')

/**
 * The pg_advisory_lock key the migrator holds while it runs, so that two
 * migrators (two containers starting at once) never race. An arbitrary
 * constant, distinct from the cleanup's.
 */
export const MIGRATION_LOCK_KEY = 7_311_001

/** What a migrator reports as it goes. */
export interface MigrationLog {
  info(msg: string, attrs?: Record<string, string | number>): void
}

export interface MigrateOptions {
  /** The directory holding `NNNN_name.sql` files. @default MIGRATIONS_DIR */
  readonly dir?: string
  readonly log?: MigrationLog
}

export interface MigrationFile {
  readonly version: number
  /** The file name without `.sql`, as recorded: `0001_init`. */
  readonly name: string
  readonly path: string
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/

/** The migration that adds requests.template, after which the migrator backfills it (insight-backfill.ts). */
const INSIGHTS_MIGRATION = '0004_insights'

/** Lists `NNNN_name.sql` in version order; any other `.sql` name or a repeated version is an error. */
export function listMigrations(dir: string): MigrationFile[] {
  const files: MigrationFile[] = []
  for (const entry of readdirSync(dir)) {
    if (!entry.endsWith('.sql')) continue
    const match = FILE.exec(entry)
    if (!match) throw new MigrationError(`migration file names must look like 0001_name.sql (lower case): ${entry}`, entry)
    files.push({ version: Number(match[1]), name: entry.slice(0, -4), path: join(dir, entry) })
  }
  files.sort((a, b) => a.version - b.version)
  for (let i = 1; i < files.length; i++) {
    if (files[i]!.version === files[i - 1]!.version) {
      throw new MigrationError(`two migrations share version ${files[i]!.version}: ${files[i - 1]!.name}, ${files[i]!.name}`)
    }
  }
  return files
}

/**
 * Applies the migrations of `dir` that are not yet recorded in
 * `schema_migrations`, in version order, each in its own transaction with
 * its record, so that a failed migration leaves nothing behind. Holds a
 * session advisory lock on one connection meanwhile; every migration also
 * re-checks its record inside its transaction, which keeps it exactly-once
 * where the lock cannot exclude (PGlite has a single session). Then the
 * captures without an endpoint template get one, in resumable batches
 * (backfillInsights). Forward-only:
 * a recorded version whose file name changed is an error. Returns the names
 * applied, in order (empty when the schema is up to date).
 */
export async function migrate(sql: postgres.Sql, options: MigrateOptions = {}): Promise<string[]> {
  const files = listMigrations(options.dir ?? MIGRATIONS_DIR)
  const conn = await sql.reserve()
  const applied: string[] = []
  try {
    await conn`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`
    try {
      await conn`
        CREATE TABLE IF NOT EXISTS schema_migrations (
          version    integer     PRIMARY KEY,
          name       text        NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`
      for (const file of files) {
        if (await applyOne(conn, file)) {
          applied.push(file.name)
          options.log?.info('migration applied', { migration: file.name })
        }
      }
    } finally {
      await conn`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`
    }
  } finally {
    conn.release()
  }
  if (applied.length === 0) options.log?.info('schema up to date', { migrations: files.length })
  // What the SQL files cannot compute: captures stored without an endpoint template. Outside
  // the lock (a pool of one must have its connection back); two at once only repeat work.
  if (files.some((file) => file.name === INSIGHTS_MIGRATION)) await backfillInsights(sql, { log: options.log })
  return applied
}

async function applyOne(conn: postgres.ReservedSql, file: MigrationFile): Promise<boolean> {
  let recorded: string | undefined
  try {
    await inTransaction(conn, async () => {
      const rows = await conn<{ name: string }[]>`SELECT name FROM schema_migrations WHERE version = ${file.version}`
      recorded = rows[0]?.name
      if (recorded !== undefined) return
      // The simple protocol runs a file of several statements in one go.
      await conn.unsafe(readFileSync(file.path, 'utf8')).simple()
      await conn`INSERT INTO schema_migrations (version, name) VALUES (${file.version}, ${file.name})`
    })
  } catch (error) {
    throw new MigrationError(`migration ${file.name} failed: ${(error as Error).message}`, file.name, { cause: error })
  }
  if (recorded !== undefined && recorded !== file.name) {
    throw new MigrationError(
      `migration ${file.version} was applied as ${recorded} but the file is now ${file.name}; migrations are forward-only`,
      file.name,
    )
  }
  return recorded === undefined
}

/**
 * `bun run migrate`: opens the database of `databaseUrl`, applies the
 * pending migrations of sql/, closes it. Throws MigrationError or
 * DatabaseUrlError (for the caller to print and exit 1).
 */
export async function runMigrations(databaseUrl: string, log?: MigrationLog): Promise<string[]> {
  const db = await openDatabase(databaseUrl, { max: 2, min: 0, idleTimeoutMs: 60_000, maxLifetimeMs: 3_600_000 })
  try {
    return await migrate(db.sql, { log })
  } finally {
    await db.close()
  }
}
