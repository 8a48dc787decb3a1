import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { openDatabase, type Database, type PoolOptions } from '../../src/store/database.ts'
import { migrate } from '../../src/store/migrator.ts'
import { startPgliteServer } from '../../src/store/pglite-server.ts'

/**
 * The database backends every storage and API integration suite runs
 * against (one parameterised suite, not two copies):
 *
 *   describe.each(BACKENDS)('gate store on %s', (kind) => { ... })
 */
export const BACKENDS = ['postgres', 'pglite'] as const
export type Backend = (typeof BACKENDS)[number]

export interface TestDatabase {
  /** SVC_APP_DATABASE_URL of this database, for starting an API on it. */
  readonly url: string
  /** Open (and migrated unless asked otherwise) for the test's own use. */
  readonly db: Database
  /** Closes `db` and removes the database. Idempotent. */
  drop(): Promise<void>
}

export interface TestDatabaseOptions {
  /** Apply sql/ migrations. @default true */
  readonly migrate?: boolean
  readonly pool?: Partial<PoolOptions>
}

/**
 * The server test databases are made on; SVC_TEST_PG_URL overrides it (a
 * test-only knob, so read here rather than through src/config).
 */
export const ADMIN_URL = process.env.SVC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/** Hooks that create a database wait for PGlite's start (seconds on a busy machine). */
export const DATABASE_HOOK_TIMEOUT_MS = 120_000

const DEFAULT_POOL: PoolOptions = { max: 10, min: 0, idleTimeoutMs: 30_000, maxLifetimeMs: 3_600_000 }

/**
 * A fresh database for one test file: on PostgreSQL a new
 * `svc_test_<random>` database (dropped WITH (FORCE) by drop()), on PGlite
 * `pglite://memory` started from a template (see pgliteTemplate). Throws,
 * never skips, when PostgreSQL is unreachable.
 */
export async function createTestDatabase(kind: Backend, options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const pool = { ...DEFAULT_POOL, ...options.pool }
  if (kind === 'pglite') {
    const url = 'pglite://memory'
    const db = await openDatabase(url, pool, { loadDataDir: await pgliteTemplate(options.migrate !== false) })
    return { url, db, drop: () => db.close() }
  }

  const admin = postgres(ADMIN_URL, { max: 1, connect_timeout: 5, onnotice: () => {} })
  const name = `svc_test_${randomBytes(6).toString('hex')}`
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`)
  } catch (error) {
    await admin.end({ timeout: 1 })
    throw new Error(
      `PostgreSQL for the integration tests is not reachable at ${describeServer(ADMIN_URL)} ` +
        `(start it, or point SVC_TEST_PG_URL at one): ${(error as Error).message}`,
      { cause: error },
    )
  }
  const url = withDatabase(ADMIN_URL, name)
  const db = await openDatabase(url, pool)
  let dropped: Promise<void> | undefined
  const drop = () =>
    (dropped ??= (async () => {
      try {
        await db.close()
      } finally {
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        await admin.end({ timeout: 1 })
      }
    })())
  if (options.migrate !== false) {
    try {
      await migrate(db.sql)
    } catch (error) {
      await drop()
      throw error
    }
  }
  return { url, db, drop }
}

const templates = new Map<boolean, Promise<Blob>>()

/**
 * A PGlite data directory (migrated or not), made once per test process:
 * starting PGlite from a dump takes about a second, running initdb several.
 * The migrations still run for real, once, on the template.
 */
function pgliteTemplate(migrated: boolean): Promise<Blob> {
  let template = templates.get(migrated)
  if (!template) {
    template = (async () => {
      const server = await startPgliteServer(undefined, 2)
      try {
        if (migrated) {
          const sql = postgres({ host: server.socketDir, port: server.port, user: 'postgres', database: 'postgres', max: 1, onnotice: () => {} })
          try {
            await migrate(sql)
          } finally {
            await sql.end()
          }
        }
        return await server.dump()
      } finally {
        await server.stop()
      }
    })()
    templates.set(migrated, template)
  }
  return template
}

/** The same server URL with another database name. */
function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  return url.toString()
}

/** host:port of a URL, never its password. */
function describeServer(serverUrl: string): string {
  try {
    const url = new URL(serverUrl)
    return `${url.hostname}:${url.port || '5432'}`
  } catch {
    return 'SVC_TEST_PG_URL'
  }
}
