import postgres from 'postgres'
import { parseDatabaseUrl } from './database-url.ts'
import { startPgliteServer, type PgliteOptions, type PgliteServer } from './pglite-server.ts'
import { createPoolObserver, type PoolStats } from './pool-observer.ts'
import { within } from '../async/within.ts'

export type { PoolStats } from './pool-observer.ts'

export const DATABASE_KINDS = ['postgres', 'pglite'] as const
export type DatabaseKind = (typeof DATABASE_KINDS)[number]

/**
 * The pool (docs/storage.md "Pool"): SVC_APP_DATABASE_MAX_CONNS, _MIN_CONNS,
 * _MAX_CONN_IDLE, _MAX_CONN_LIFE.
 */
export interface PoolOptions {
  /** Most connections open at once. @default 25 in the API's config */
  readonly max: number
  /** Connections opened at start and kept open while idle (see docs/storage.md "Pool"). */
  readonly min: number
  /** An idle connection above `min` is closed after this long. */
  readonly idleTimeoutMs: number
  /** A connection is closed (and replaced on demand) after this long. */
  readonly maxLifetimeMs: number
}

export interface Database {
  /** The postgres.js client. Inside `sql.begin(tx => ...)` use `tx` only (see docs/storage.md "PGlite"). */
  readonly sql: postgres.Sql
  /** The database's name, for the `db_name` metric label. */
  readonly dbName: string
  readonly kind: DatabaseKind
  /** Whether `SELECT 1` answers within `timeoutMs`; never throws. */
  ping(timeoutMs: number): Promise<boolean>
  /** The pool as observed from its sockets; see PoolStats. */
  poolStats(): PoolStats
  /** Closes the pool (and the embedded PGlite). Idempotent. */
  close(): Promise<void>
}

/**
 * PGlite serves one query at a time, so more connections only queue; a few
 * let one connection hold a transaction while others wait their turn.
 */
const PGLITE_MAX_CONNECTIONS = 4

/**
 * Opens a database from SVC_APP_DATABASE_URL: `postgres://` / `postgresql://`
 * for PostgreSQL, `pglite://memory` or `pglite://<dir>` for the embedded
 * PGlite served on a private Unix socket. Both are used through the same
 * postgres.js client. Throws DatabaseUrlError for any other URL. Does not
 * fail when PostgreSQL is down: `ping` reports it, queries fail until it
 * is back. `pglite` applies to PGlite URLs only.
 */
export async function openDatabase(url: string, pool: PoolOptions, pglite: PgliteOptions = {}): Promise<Database> {
  const target = parseDatabaseUrl(url)
  const common = {
    onnotice: () => {},
    connection: { application_name: 'svc-shadow' },
  }
  if (target.kind === 'postgres') {
    const observer = createPoolObserver(pool.max)
    const sql = postgres(target.url, {
      ...common,
      // After five runs of a prepared statement PostgreSQL may switch to a
      // generic plan; with one gate holding most rows, that plan scans the
      // whole gate for a path filter (1.7 s instead of 0.19 s measured on
      // 1M captures). Custom plans cost a little planning per query.
      connection: { ...common.connection, plan_cache_mode: 'force_custom_plan' },
      max: pool.max,
      idle_timeout: pool.idleTimeoutMs / 1000,
      max_lifetime: pool.maxLifetimeMs / 1000,
      socket: observer.socket,
    } as postgres.Options<{}>)
    return assemble('postgres', sql, observer.stats, Math.min(pool.min, pool.max), pool.idleTimeoutMs)
  }

  const max = Math.max(1, Math.min(pool.max, PGLITE_MAX_CONNECTIONS))
  const server = await startPgliteServer(target.dataDir, max + 1, pglite)
  const observer = createPoolObserver(max)
  // Connections never idle out or expire: in-process sockets cost nothing,
  // and every reconnect would leave its prepared statements behind in
  // PGlite's single session.
  const sql = postgres({
    ...common,
    host: server.socketDir,
    port: server.port,
    user: 'postgres',
    database: 'postgres',
    max,
    idle_timeout: 0,
    max_lifetime: null,
    socket: observer.socket,
  } as postgres.Options<{}>)
  return assemble('pglite', sql, observer.stats, Math.min(pool.min, max), 0, server)
}

function assemble(
  kind: DatabaseKind,
  sql: postgres.Sql,
  stats: () => PoolStats,
  min: number,
  idleTimeoutMs: number,
  server?: PgliteServer,
): Database {
  const keeper = keepMinimum(sql, min, idleTimeoutMs)
  let closing: Promise<void> | undefined
  return {
    sql,
    dbName: sql.options.database,
    kind,
    ping: (timeoutMs) => ping(sql, timeoutMs),
    poolStats: stats,
    close: () =>
      (closing ??= (async () => {
        keeper.stop()
        try {
          await sql.end({ timeout: 5 })
        } finally {
          await server?.stop()
        }
      })()),
  }
}

/**
 * postgres.js opens connections on demand and has no minimum. `min` maps to:
 * open `min` connections at start, then every idleTimeout/2 take `min`
 * connections at once and run `SELECT 1` on each, which reopens any that
 * were closed (lifetime, server restart) and restarts their idle timers.
 * Failures are ignored: the next round tries again.
 */
function keepMinimum(sql: postgres.Sql, min: number, idleTimeoutMs: number): { stop(): void } {
  if (min <= 0) return { stop() {} }
  let running = false
  let stopped = false
  const round = async () => {
    if (running || stopped) return
    running = true
    try {
      const reserved = await Promise.allSettled(Array.from({ length: min }, () => sql.reserve()))
      await Promise.allSettled(
        reserved.map(async (r) => {
          if (r.status !== 'fulfilled') return
          try {
            await r.value`SELECT 1`
          } finally {
            r.value.release()
          }
        }),
      )
    } finally {
      running = false
    }
  }
  void round()
  if (idleTimeoutMs <= 0) return { stop: () => void (stopped = true) }
  const timer = setInterval(() => void round(), Math.max(1000, idleTimeoutMs / 2))
  timer.unref()
  return {
    stop() {
      stopped = true
      clearInterval(timer)
    },
  }
}

async function ping(sql: postgres.Sql, timeoutMs: number): Promise<boolean> {
  const query = sql`SELECT 1`
  return within(
    query.then(() => true, () => false),
    timeoutMs,
    () => {
      // A queued query is dropped; a running one gets a CancelRequest.
      void Promise.resolve(query.cancel() as unknown).catch(() => {})
      return false
    },
  )
}
