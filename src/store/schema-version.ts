import type postgres from 'postgres'

/**
 * The schema version this build's queries need: the highest migration in
 * sql/ (a test keeps the two equal). A constant rather than a look at sql/,
 * which only the migrator's image carries.
 */
export const REQUIRED_SCHEMA_VERSION = 8

/**
 * The highest migration recorded in the database, 0 on one never migrated.
 * Throws when it cannot be queried.
 */
export async function schemaVersion(sql: postgres.Sql): Promise<number> {
  try {
    const [row] = await sql<{ version: number | null }[]>`SELECT max(version) AS version FROM schema_migrations`
    return Number(row?.version ?? 0)
  } catch (error) {
    // undefined_table: no migration ever ran here.
    if ((error as { code?: unknown }).code === '42P01') return 0
    throw error
  }
}
