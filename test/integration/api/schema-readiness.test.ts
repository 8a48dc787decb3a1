/**
 * The schema check behind /health/ready and behind the 503 for a database
 * never migrated (src/api/schema-readiness.ts), on a real database: callers
 * at the same time share one check, so that a flood of requests failing on
 * an unmigrated database costs it one more statement, not one per request;
 * a check that is over is not reused, and once the schema is up to date no
 * statement is run at all.
 */
import { describe, expect, test } from 'bun:test'
import type postgres from 'postgres'
import { SchemaReadiness } from '../../../src/api/schema-readiness.ts'
import { migrate } from '../../../src/store/migrator.ts'
import { BACKENDS, createTestDatabase, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

/** The database's own client, counting the statements sent through it; the first `hang` of them never answer. */
function counted(sql: postgres.Sql, hang = 0): { sql: postgres.Sql; statements: () => number } {
  let statements = 0
  const proxy = new Proxy(sql, {
    apply(target, self, args) {
      statements++
      return statements <= hang ? new Promise(() => {}) : Reflect.apply(target, self, args)
    },
  })
  return { sql: proxy, statements: () => statements }
}

describe.each(BACKENDS)('SchemaReadiness on %s', (backend) => {
  test(
    'twenty callers at once share one check; a later caller checks again; up to date, nothing is asked',
    async () => {
      const database = await createTestDatabase(backend, { migrate: false })
      try {
        const { sql, statements } = counted(database.db.sql)
        const readiness = new SchemaReadiness(sql)
        const answers = await Promise.all(Array.from({ length: 20 }, () => readiness.problem(5000)))
        expect(statements()).toBe(1)
        expect(new Set(answers).size).toBe(1)
        expect(answers[0]).toStartWith('schema version 0, this build needs ')

        expect(await readiness.problem(5000)).toBe(answers[0])
        expect(statements()).toBe(2)

        await migrate(database.db.sql)
        // The first check after the migration sees it: nothing of the one before is reused.
        expect(await readiness.problem(5000)).toBeUndefined()
        expect(statements()).toBe(3)
        expect(await Promise.all([readiness.problem(5000), readiness.problem(5000)])).toEqual([undefined, undefined])
        expect(statements()).toBe(3)
      } finally {
        await database.drop()
      }
    },
    DATABASE_HOOK_TIMEOUT_MS,
  )

  test(
    'a check that hangs past a caller\'s bound is not shared: the next caller asks the database again',
    async () => {
      const database = await createTestDatabase(backend, { migrate: false })
      try {
        const { sql, statements } = counted(database.db.sql, 1)
        const readiness = new SchemaReadiness(sql)
        expect(await readiness.problem(50)).toBe('the schema version could not be read within 50 ms')
        expect(await readiness.problem(2000)).toStartWith('schema version 0, this build needs ')
        expect(statements()).toBe(2)
      } finally {
        await database.drop()
      }
    },
    DATABASE_HOOK_TIMEOUT_MS,
  )
})
