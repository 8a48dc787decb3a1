import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { dlopen, FFIType } from 'bun:ffi'
import { DataDirLockedError } from './errors.ts'

/** Inside the data directory: it travels with the data (a volume), and PGlite ignores files it does not know. */
export const LOCK_FILE = '.svc-shadow.lock'

export interface DataDirLock {
  /** Lets another process open the directory. Idempotent. */
  release(): void
}

/**
 * Takes the PGlite data directory for this process alone: two processes on
 * one directory would each run their own PostgreSQL over the same files
 * and corrupt them (docs/storage.md "PGlite"). The lock is flock(2) on
 * LOCK_FILE: the kernel drops it when the process ends, however it ends,
 * so a crash never leaves a stale lock behind, and no process id is
 * trusted across restarts or containers. The holder's pid is written into
 * the file only for the message the next process prints.
 *
 * @throws DataDirLockedError when another process holds it.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true })
  const path = join(dataDir, LOCK_FILE)
  const fd = openSync(path, 'a+')
  const flock = libcFlock()
  if (flock && flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const holder = readFileSync(path, 'utf8').trim()
    closeSync(fd)
    throw new DataDirLockedError(dataDir, /^\d+$/.test(holder) ? Number(holder) : undefined)
  }
  ftruncateSync(fd, 0)
  writeSync(fd, `${process.pid}\n`)
  let released = false
  return {
    release() {
      if (released) return
      released = true
      // Closing the descriptor drops the lock.
      closeSync(fd)
    },
  }
}

const LOCK_EX = 2
const LOCK_NB = 4

type Flock = (fd: number, operation: number) => number
let cached: Flock | null | undefined

/**
 * flock(2) from the C library through bun:ffi (Node's fs has no file
 * locks). Null where no C library with flock loads (Windows): there the
 * directory is not locked, as docs/storage.md says.
 */
function libcFlock(): Flock | null {
  if (cached !== undefined) return cached
  cached = null
  const names = process.platform === 'darwin' ? ['libc.dylib'] : ['libc.so.6', `libc.musl-${muslArch()}.so.1`, 'libc.so']
  for (const name of names) {
    try {
      const lib = dlopen(name, { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } })
      cached = (fd, operation) => lib.symbols.flock(fd, operation)
      break
    } catch {
      // Not this library: try the next name.
    }
  }
  return cached
}

function muslArch(): string {
  return process.arch === 'arm64' ? 'aarch64' : 'x86_64'
}
