import type postgres from 'postgres'
import { REQUIRED_SCHEMA_VERSION, schemaVersion } from '../store/schema-version.ts'
import { within } from '../async/within.ts'

/**
 * Whether the database's schema is the one this build needs: a database
 * that answers but was never migrated (or is behind) fails every query, so
 * readiness must not say ok on a mere `SELECT 1`. Once up to date it is
 * remembered: migrations are forward-only.
 *
 * Callers at the same time share one check: on a database never migrated,
 * every request fails and asks (`plugins/problem-handler.ts`), and a flood
 * of them must not become a flood of checks. A check that is over is not
 * reused (the answer right after a migration is the new one), nor one
 * that outlived a caller's bound (a database that hung may answer again).
 */
export class SchemaReadiness {
  private upToDate = false
  private inFlight: Promise<string | undefined> | undefined

  constructor(
    private readonly sql: postgres.Sql,
    private readonly required: number = REQUIRED_SCHEMA_VERSION,
  ) {}

  /** undefined when the schema is up to date, else what is wrong with it, within `timeoutMs`; never throws. */
  async problem(timeoutMs: number): Promise<string | undefined> {
    if (this.upToDate) return undefined
    const read = (this.inFlight ??= this.check())
    return within(read, timeoutMs, () => {
      // A check that hangs is not shared past its bound: the next caller asks again.
      if (this.inFlight === read) this.inFlight = undefined
      return `the schema version could not be read within ${timeoutMs} ms`
    })
  }

  private check(): Promise<string | undefined> {
    const done = () => {
      if (this.inFlight === read) this.inFlight = undefined
    }
    const read = schemaVersion(this.sql).then(
      (version) => {
        if (version >= this.required) {
          this.upToDate = true
          return undefined
        }
        return `schema version ${version}, this build needs ${this.required}: run \`bun run migrate\``
      },
      (error: unknown) => `the schema version could not be read: ${(error as Error).message}`,
    )
    void read.then(done)
    return read
  }
}
