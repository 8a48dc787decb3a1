import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lockDataDir } from '../../../src/store/data-dir-lock.ts'
import { openDatabase } from '../../../src/store/database.ts'
import { DataDirLockedError } from '../../../src/store/errors.ts'
import { freePort, waitFor } from '../../support/upstreams.ts'

const MAIN = join(import.meta.dir, '../../../src/main.ts')
const KEY = 'data-dir-lock-key-0123'
const POOL = { max: 2, min: 0, idleTimeoutMs: 60_000, maxLifetimeMs: 3_600_000 }
const dirs: string[] = []

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-lock-test-'))
  dirs.push(dir)
  return dir
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** The exit code, or 'running' if the process has not exited within `ms` (it is then killed). */
async function exitWithin(proc: ReturnType<typeof spawnMain>, ms: number): Promise<number | 'running'> {
  const code = await Promise.race([proc.exited, Bun.sleep(ms).then(() => 'running' as const)])
  if (code === 'running') {
    proc.kill('SIGKILL')
    await proc.exited
  }
  return code
}

function spawnMain(component: 'api' | 'migrate', env: Record<string, string>) {
  return Bun.spawn(['bun', 'run', MAIN, component], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_APP_LOG_FORMAT: 'json', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
}

describe('one process per PGlite directory', () => {
  test('a second api or migrate on the directory exits 1 with one line; after the first dies, the next one starts', async () => {
    const dir = tempDir()
    const url = `pglite://${dir}`
    const port = freePort()
    const first = spawnMain('api', { SVC_APP_DATABASE_URL: url, SVC_APP_API_KEY: KEY, SVC_APP_PORT: String(port) })
    try {
      await waitFor(
        async () => (first.exitCode !== null ? 'exited' : await fetch(`http://127.0.0.1:${port}/health/live`).then((r) => (r.ok ? 'up' : undefined), () => undefined)),
        90_000,
        'the first API',
        100,
      )
      expect(first.exitCode).toBeNull()

      const second = spawnMain('api', { SVC_APP_DATABASE_URL: url, SVC_APP_API_KEY: KEY, SVC_APP_PORT: String(freePort()) })
      expect(await exitWithin(second, 60_000)).toBe(1)
      expect((await new Response(second.stderr).text()).trim()).toBe(
        `the PGlite directory ${dir} is in use by another process (pid ${first.pid}); one process at a time may open it`,
      )
      expect((await new Response(second.stdout).text()).trim()).toBe('')

      // The migrator says it as the API does: the one line, no log record with a stack.
      const migrator = spawnMain('migrate', { SVC_APP_DATABASE_URL: url })
      expect(await exitWithin(migrator, 60_000)).toBe(1)
      expect((await new Response(migrator.stderr).text()).trim()).toBe(
        `the PGlite directory ${dir} is in use by another process (pid ${first.pid}); one process at a time may open it`,
      )
      expect((await new Response(migrator.stdout).text()).trim()).toBe('')
    } finally {
      // Killed outright: no cleanup runs, and the lock must not outlive it.
      first.kill('SIGKILL')
      await first.exited
    }
    const after = spawnMain('migrate', { SVC_APP_DATABASE_URL: url })
    expect(await exitWithin(after, 90_000)).toBe(0)
  }, 240_000)

  test('within one process, a second lock on the directory is refused until the first is released', () => {
    const dir = tempDir()
    const lock = lockDataDir(dir)
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError)
    lock.release()
    lockDataDir(dir).release()
  })

  test('pglite://memory takes no lock: two in-memory databases open side by side', async () => {
    const a = await openDatabase('pglite://memory', POOL)
    const b = await openDatabase('pglite://memory', POOL)
    try {
      expect((await a.sql`SELECT 1 AS one`)[0]).toEqual({ one: 1 })
      expect((await b.sql`SELECT 1 AS one`)[0]).toEqual({ one: 1 })
    } finally {
      await a.close()
      await b.close()
    }
  }, 120_000)
})
