import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, type Server, type Socket } from 'node:net'
import { PGlite } from '@electric-sql/pglite'
import { fatalError, FrontendReader, TERMINATE } from './pg-wire.ts'
import { PgliteSession } from './pglite-session.ts'
import { lockDataDir } from './data-dir-lock.ts'

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
 * otherwise persisted there) and serves it on a Unix socket inside a fresh
 * directory only this user can enter (mkdtemp, mode 0700), so no TCP port
 * is ever opened and no other user can connect. PGlite has one backend
 * session; PgliteSession gives it to one connection at a time, for a whole
 * exchange or transaction. At most `maxConnections` clients at once; more
 * are refused as PostgreSQL refuses them (SQLSTATE 53300). A data directory
 * is locked for this process until stop() (lockDataDir).
 * @throws DataDirLockedError when another process has `dataDir` open.
 */
export async function startPgliteServer(
  dataDir: string | undefined,
  maxConnections: number,
  options: PgliteOptions = {},
): Promise<PgliteServer> {
  // Before PGlite touches the files: a second process must not even start recovery on them.
  const lock = dataDir === undefined ? undefined : lockDataDir(dataDir)
  let db: PGlite
  try {
    db = await PGlite.create({ dataDir, loadDataDir: options.loadDataDir })
  } catch (error) {
    lock?.release()
    throw error
  }
  const socketDir = mkdtempSync(join(tmpdir(), 'svc-pglite-'))
  chmodSync(socketDir, 0o700)
  liveSocketDirs.add(socketDir)
  const removeSocketDir = () => {
    rmSync(socketDir, { recursive: true, force: true })
    liveSocketDirs.delete(socketDir)
  }
  const session = new PgliteSession(db)
  /** Every open socket, refused ones included, for stop(). */
  const sockets = new Set<Socket>()
  let served = 0
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {}) // 'close' follows
    socket.once('close', () => sockets.delete(socket))
    if (served >= maxConnections) {
      refuse(socket, fatalError('53300', 'sorry, too many clients already'))
      return
    }
    served++
    socket.once('close', () => served--)
    serveConnection(socket, session)
  })
  try {
    await listen(server, join(socketDir, `.s.PGSQL.${PGLITE_SOCKET_PORT}`))
  } catch (error) {
    await db.close()
    lock?.release()
    removeSocketDir()
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
          const closed = new Promise<void>((resolve) => server.close(() => resolve()))
          for (const socket of sockets) socket.destroy()
          await closed
          await db.close()
        } finally {
          lock?.release()
          removeSocketDir()
        }
      })()),
  }
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(path, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

/** Sends a last error and closes, whether or not the client ever closes its side. */
function refuse(socket: Socket, error: Uint8Array): void {
  socket.end(error, () => socket.destroy())
}

/** One client: its bytes cut into messages for the session, the answers written back. */
function serveConnection(socket: Socket, session: PgliteSession): void {
  const reader = new FrontendReader()
  const connection = session.open({
    // PGlite hands out views of its memory: Buffer.from copies.
    write: (bytes) => void (socket.writable && socket.write(Buffer.from(bytes))),
    fail: () => socket.destroy(),
    end: () => socket.end(),
  })
  socket.on('data', (piece: Buffer) => {
    for (const message of reader.push(piece)) {
      switch (message.kind) {
        case 'encryption-request':
          socket.write('N')
          break
        case 'cancel-request':
          // Not supported: PGlite runs one message to its end, uninterruptibly.
          socket.destroy()
          return
        case 'invalid':
          refuse(socket, fatalError('08P01', `invalid frontend message: ${message.reason}`))
          return
        case 'startup':
          connection.submit(message.bytes)
          break
        case 'message':
          if (message.type === TERMINATE) {
            // After what the client sent before it, as PostgreSQL reads a connection in order.
            connection.finish()
            return
          }
          connection.submit(message.bytes)
      }
    }
  })
  socket.once('close', () => connection.close())
}
