import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, type Database } from '../../../src/store/database.ts'
import { parseDatabaseUrl } from '../../../src/store/database-url.ts'
import { DatabaseUrlError } from '../../../src/store/errors.ts'
import { migrate } from '../../../src/store/migrator.ts'
import { startPgliteServer } from '../../../src/store/pglite-server.ts'
import { BACKENDS, createTestDatabase, DATABASE_HOOK_TIMEOUT_MS, type TestDatabase } from '../../support/database.ts'

const POOL = { max: 5, min: 2, idleTimeoutMs: 60_000, maxLifetimeMs: 3_600_000 }

describe('parseDatabaseUrl', () => {
  test.each([
    ['postgres://u:p@db:5432/svc', { kind: 'postgres', url: 'postgres://u:p@db:5432/svc' }],
    ['postgresql://db/svc', { kind: 'postgres', url: 'postgresql://db/svc' }],
    ['pglite://memory', { kind: 'pglite', dataDir: undefined }],
    ['pglite:///var/lib/svc', { kind: 'pglite', dataDir: '/var/lib/svc' }],
    ['pglite://./.svc-demo', { kind: 'pglite', dataDir: '/home/me/.svc-demo' }],
    ['pglite://data/db', { kind: 'pglite', dataDir: '/home/me/data/db' }],
  ])('reads %p', (url, target) => {
    expect(parseDatabaseUrl(url, '/home/me')).toEqual(target as never)
  })

  test.each(['mysql://root:secret@db/svc', 'sqlite:///tmp/x.db', 'db.example.com:5432', 'pglite://', ''])(
    'rejects %p with a typed error that never repeats the URL',
    (url) => {
      let error: unknown
      try {
        parseDatabaseUrl(url)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(DatabaseUrlError)
      expect((error as DatabaseUrlError).code).toBe('invalid-database-url')
      expect((error as Error).message).not.toContain('secret')
    },
  )

  test('openDatabase refuses an unsupported scheme before connecting', async () => {
    expect(openDatabase('mysql://root:secret@db/svc', POOL)).rejects.toBeInstanceOf(DatabaseUrlError)
  })
})

describe.each(BACKENDS)('database on %s', (kind) => {
  let t: TestDatabase
  let db: Database

  beforeAll(async () => {
    t = await createTestDatabase(kind, { pool: POOL })
    db = t.db
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t?.drop())

  test('reports its kind and database name', () => {
    expect(db.kind).toBe(kind)
    expect(db.dbName).toBe(kind === 'pglite' ? 'postgres' : new URL(t.url).pathname.slice(1))
  })

  test('answers a ping', async () => {
    expect(await db.ping(5000)).toBe(true)
  })

  test('warms up `min` connections and observes the pool', async () => {
    await Bun.sleep(200)
    const idle = db.poolStats()
    expect(idle.max).toBe(kind === 'pglite' ? 4 : 5) // PGlite's pool is capped at 4
    expect(idle.total).toBeGreaterThanOrEqual(2)
    expect(idle.active).toBe(0)
    expect(idle.idle).toBe(idle.total)

    // A transaction left open counts as active, on both backends.
    let finish = () => {}
    const open = db.sql.begin(async (tx) => {
      await tx`SELECT 1`
      await new Promise<void>((resolve) => (finish = resolve))
    })
    await Bun.sleep(100)
    expect(db.poolStats().active).toBe(1)
    finish()
    await open
    if (kind === 'postgres') {
      // Queries in flight count as active. (PGlite runs queries on this
      // thread, so nothing can look at the pool while one runs.)
      const busy = Promise.all([1, 2, 3].map(() => db.sql`SELECT pg_sleep(0.3)`))
      await Bun.sleep(100)
      const during = db.poolStats()
      expect(during.active).toBe(3)
      expect(during.idle + during.active).toBe(during.total)
      await busy
    }
    expect(db.poolStats().active).toBe(0)
  })

  test('runs concurrent transactions, commits and rollbacks, interleaved with plain queries', async () => {
    await db.sql`CREATE TABLE tx_probe (id integer PRIMARY KEY, n integer NOT NULL)`
    const outcomes = await Promise.allSettled(
      Array.from({ length: 24 }, (_, i) =>
        db.sql.begin(async (tx) => {
          await tx`INSERT INTO tx_probe VALUES (${i}, 0)`
          await tx`UPDATE tx_probe SET n = n + 1 WHERE id = ${i}`
          const [row] = await tx<{ n: number }[]>`SELECT n FROM tx_probe WHERE id = ${i}`
          if (row?.n !== 1) throw new Error(`transaction ${i} saw n = ${row?.n}`)
          if (i % 4 === 0) throw new Error('roll back')
          return i
        }),
      ),
    )
    const plain = await Promise.all(Array.from({ length: 24 }, (_, i) => db.sql<{ i: number }[]>`SELECT ${i}::int AS i`))
    expect(plain.map((rows) => rows[0]!.i)).toEqual(Array.from({ length: 24 }, (_, i) => i))
    const failures = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.message)
    expect(failures).toEqual(Array(6).fill('roll back'))
    const [count] = await db.sql<{ n: string }[]>`SELECT count(*) AS n FROM tx_probe`
    expect(Number(count!.n)).toBe(18)
  })

  test('never mixes up the results of concurrent queries of different shapes', async () => {
    const results = await Promise.all(
      Array.from({ length: 600 }, async (_, i) => {
        const n = i % 7
        const rows = await db.sql<{ i: number; s: string }[]>`
          SELECT ${i}::int AS i, ${`s${i}`}::text || g AS s FROM generate_series(1, ${n}::int) AS g`
        return rows.length === n && rows.every((row, k) => row.i === i && row.s === `s${i}${k + 1}`)
      }),
    )
    expect(results.every(Boolean)).toBe(true)
  })

  test('answers false, without throwing, once closed', async () => {
    const other = await createTestDatabase(kind, { migrate: false, pool: { max: 2 } })
    expect(await other.db.ping(5000)).toBe(true)
    await other.drop()
    expect(await other.db.ping(500)).toBe(false)
    await other.db.close() // idempotent
  }, DATABASE_HOOK_TIMEOUT_MS)
})

describe('postgres unreachable', () => {
  test('ping answers false within its timeout', async () => {
    const db = await openDatabase('postgres://postgres@127.0.0.1:1/none', { ...POOL, min: 0 })
    const started = performance.now()
    expect(await db.ping(300)).toBe(false)
    expect(performance.now() - started).toBeLessThan(2000)
    await db.close()
  })
})

describe('pglite', () => {
  test('serves on a Unix socket in a private directory, removed on stop', async () => {
    const server = await startPgliteServer(undefined, 2)
    try {
      expect(statSync(server.socketDir).mode & 0o777).toBe(0o700)
      expect(statSync(join(server.socketDir, `.s.PGSQL.${server.port}`)).isSocket()).toBe(true)
    } finally {
      await server.stop()
    }
    expect(existsSync(server.socketDir)).toBe(false)
  }, DATABASE_HOOK_TIMEOUT_MS)

  test('pglite://<dir> keeps its data across reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-pglite-data-'))
    try {
      const url = `pglite://${join(dir, 'db')}`
      const first = await openDatabase(url, POOL)
      await migrate(first.sql)
      await first.sql`INSERT INTO gates (id, name, live_url, shadow_url) VALUES (${crypto.randomUUID()}, 'kept', 'http://l', 'http://s')`
      await first.close()

      const second = await openDatabase(url, POOL)
      expect(await migrate(second.sql)).toEqual([])
      const rows = await second.sql<{ name: string }[]>`SELECT name FROM gates`
      expect(rows.map((r) => r.name)).toEqual(['kept'])
      await second.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
})
