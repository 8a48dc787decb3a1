import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, type Database } from '../../../src/store/database.ts'
import { MigrationError } from '../../../src/store/errors.ts'
import { listMigrations, migrate, MIGRATION_LOCK_KEY, MIGRATIONS_DIR } from '../../../src/store/migrator.ts'
import { REQUIRED_SCHEMA_VERSION } from '../../../src/store/schema-version.ts'
import { BACKENDS, createTestDatabase, DATABASE_HOOK_TIMEOUT_MS, type TestDatabase } from '../../support/database.ts'

const dirs: string[] = []
function migrationDir(files: Record<string, string>, withReal = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-migrations-'))
  dirs.push(dir)
  if (withReal) for (const name of readdirSync(MIGRATIONS_DIR)) copyFileSync(join(MIGRATIONS_DIR, name), join(dir, name))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

const REAL = listMigrations(MIGRATIONS_DIR).map((m) => m.name)

describe('listMigrations', () => {
  test('orders NNNN_name.sql by version and ignores other files', () => {
    const dir = migrationDir({ '0002_b.sql': '', '0010_c.sql': '', '0001_a.sql': '', 'README.md': '' })
    expect(listMigrations(dir).map((m) => [m.version, m.name])).toEqual([
      [1, '0001_a'],
      [2, '0002_b'],
      [10, '0010_c'],
    ])
  })

  test.each([['1_init.sql'], ['0001-init.sql'], ['0001_Init.sql']])('rejects the file name %p', (name) => {
    expect(() => listMigrations(migrationDir({ [name]: '' }))).toThrow(MigrationError)
  })

  test('rejects two files with one version', () => {
    expect(() => listMigrations(migrationDir({ '0001_a.sql': '', '0001_b.sql': '' }))).toThrow(/share version 1/)
  })

  test('REQUIRED_SCHEMA_VERSION, what the API checks for readiness, is the last migration of sql/', () => {
    expect(REQUIRED_SCHEMA_VERSION).toBe(Math.max(...listMigrations(MIGRATIONS_DIR).map((m) => m.version)))
  })

  test('the repository has at least the initial migration', () => {
    expect(REAL[0]).toBe('0001_init')
  })
})

describe.each(BACKENDS)('migrate on %s', (kind) => {
  let t: TestDatabase
  const extra: Database[] = []

  beforeAll(async () => {
    t = await createTestDatabase(kind, { migrate: false })
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await Promise.all(extra.map((db) => db.close()))
    await t?.drop()
  })

  /** Migrators in separate pools on PostgreSQL (like separate containers); PGlite has one process. */
  async function clients(n: number): Promise<Database[]> {
    if (kind === 'pglite') return Array(n).fill(t.db)
    const opened = await Promise.all(
      Array.from({ length: n }, () => openDatabase(t.url, { max: 2, min: 0, idleTimeoutMs: 60_000, maxLifetimeMs: 3_600_000 })),
    )
    extra.push(...opened)
    return opened
  }

  test('concurrent migrators apply each migration exactly once', async () => {
    const results = await Promise.all((await clients(4)).map((db) => migrate(db.sql)))
    expect(results.flat().sort()).toEqual([...REAL].sort())
    const rows = await t.db.sql<{ version: number; name: string }[]>`SELECT version, name FROM schema_migrations ORDER BY version`
    expect(rows.map((r) => r.name)).toEqual(REAL)
  })

  test('a second run applies nothing', async () => {
    expect(await migrate(t.db.sql)).toEqual([])
  })

  test('a failing migration leaves nothing behind and is not recorded', async () => {
    const dir = migrationDir({ '9001_broken.sql': 'CREATE TABLE half_done (x int);\nSELECT 1 / 0;' }, true)
    expect(migrate(t.db.sql, { dir })).rejects.toThrow(/9001_broken failed: division by zero/)
    const [table] = await t.db.sql<{ found: string | null }[]>`SELECT to_regclass('half_done')::text AS found`
    expect(table!.found).toBeNull()
    const recorded = await t.db.sql`SELECT 1 FROM schema_migrations WHERE version = 9001`
    expect(recorded.length).toBe(0)
  })

  test('applies a new migration after the recorded ones, with several statements', async () => {
    const dir = migrationDir({ '9002_more.sql': 'CREATE TABLE more_a (x int);\nCREATE TABLE more_b (y int);' }, true)
    expect(await migrate(t.db.sql, { dir })).toEqual(['9002_more'])
    expect(await migrate(t.db.sql, { dir })).toEqual([])
  })

  test('refuses a recorded version whose file was renamed', async () => {
    const dir = migrationDir({ '9002_renamed.sql': 'SELECT 1;' }, true)
    expect(migrate(t.db.sql, { dir })).rejects.toThrow(/applied as 9002_more but the file is now 9002_renamed/)
  })

  test('logs what it applies', async () => {
    const lines: string[] = []
    const dir = migrationDir({ '9003_logged.sql': 'SELECT 1;' }, true)
    await migrate(t.db.sql, { dir, log: { info: (msg, attrs) => lines.push(`${msg} ${JSON.stringify(attrs)}`) } })
    expect(lines).toEqual(['migration applied {"migration":"9003_logged"}'])
  })

  // PGlite is one session: an advisory lock cannot exclude its holder, and
  // the per-migration check inside the transaction keeps it exactly-once.
  if (kind === 'postgres') test('waits while another session holds the migration lock', async () => {
    const [holder] = await clients(1)
    const conn = await holder!.sql.reserve()
    await conn`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`
    let done = false
    const run = migrate(t.db.sql).then((applied) => {
      done = true
      return applied
    })
    await Bun.sleep(300)
    expect(done).toBe(false)
    await conn`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`
    conn.release()
    expect(await run).toEqual([])
  })
})
