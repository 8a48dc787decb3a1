import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

/** Socket directories of servers not stopped yet, removed should the process exit first. */
const liveSocketDirs = new Set<string>()
process.once('exit', () => {
  for (const dir of liveSocketDirs) rmSync(dir, { recursive: true, force: true })
})

/** The port number only names the socket file: `<dir>/.s.PGSQL.<port>`. */
export const PGLITE_SOCKET_PORT = 5432

/** An embedded PGlite reachable by any PostgreSQL client on a private Unix socket. */
export interface PgliteServer {
  /** The directory holding the socket: the client's `host`. */
  readonly socketDir: string
  readonly port: number
  /** A tarball of the data directory, for `loadDataDir` (see PgliteOptions). */
  dump(): Promise<Blob>
  stop(): Promise<void>
}

export interface PgliteOptions {
  /**
   * Start from this dump of a data directory (PgliteServer.dump) instead of
   * running initdb: about 1 s instead of several. Tests use a migrated dump.
   */
  readonly loadDataDir?: Blob
}

/**
 * Starts PGlite in this process (in memory when `dataDir` is undefined,
 * otherwise persisted there) and serves it with @electric-sql/pglite-socket
 * on a Unix socket inside a fresh directory only this user can enter
 * (mkdtemp, mode 0700), so no TCP port is ever opened and no other user can
 * connect. PGlite runs one query at a time; the socket server queues
 * queries from up to `maxConnections` clients and keeps a transaction's
 * statements together.
 */
export async function startPgliteServer(
  dataDir: string | undefined,
  maxConnections: number,
  options: PgliteOptions = {},
): Promise<PgliteServer> {
  const db = await PGlite.create({ dataDir, loadDataDir: options.loadDataDir })
  const socketDir = mkdtempSync(join(tmpdir(), 'svc-pglite-'))
  chmodSync(socketDir, 0o700)
  liveSocketDirs.add(socketDir)
  const server = new PGLiteSocketServer({
    db,
    path: join(socketDir, `.s.PGSQL.${PGLITE_SOCKET_PORT}`),
    maxConnections,
  })
  try {
    await server.start()
  } catch (error) {
    await db.close()
    rmSync(socketDir, { recursive: true, force: true })
    liveSocketDirs.delete(socketDir)
    throw error
  }
  let stopped: Promise<void> | undefined
  return {
    socketDir,
    port: PGLITE_SOCKET_PORT,
    dump: () => db.dumpDataDir('none'),
    stop: () =>
      (stopped ??= (async () => {
        try {
          await server.stop()
          await db.close()
        } finally {
          rmSync(socketDir, { recursive: true, force: true })
          liveSocketDirs.delete(socketDir)
        }
      })()),
  }
}
