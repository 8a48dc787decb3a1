import type postgres from 'postgres'
import { MIGRATIONS_DIR, pendingMigrations } from '../store/migrator.ts'

/**
 * Whether the database's schema is the one this build needs: a database
 * that answers but was never migrated (or is behind) fails every query, so
 * readiness must not say ok on a mere `SELECT 1`. Once up to date it is
 * remembered: migrations are forward-only.
 */
export class SchemaReadiness {
  private upToDate = false

  constructor(
    private readonly sql: postgres.Sql,
    private readonly dir: string = MIGRATIONS_DIR,
  ) {}

  /** The pending migrations' names, [] when up to date. Throws when the database cannot be queried. */
  async pending(): Promise<string[]> {
    if (this.upToDate) return []
    const pending = await pendingMigrations(this.sql, this.dir)
    if (pending.length === 0) this.upToDate = true
    return pending
  }
}

/** The readiness line for pending migrations. */
export function pendingLine(pending: readonly string[]): string {
  return `${pending.length} migration${pending.length === 1 ? '' : 's'} pending (${pending.join(', ')}): run \`bun run migrate\``
}
