import type postgres from 'postgres'

/**
 * Runs `fn` in a transaction on a reserved connection. postgres.js's
 * `begin()` takes a connection of its own from the pool; the migrator and
 * the cleanup instead keep everything on the one connection that holds
 * their advisory lock, so they work even with a pool of one.
 *
 * BEGIN, COMMIT and ROLLBACK go as simple-protocol queries (one message
 * and one round trip each, nothing prepared), as postgres.js's own begin()
 * does.
 */
export async function inTransaction<T>(conn: postgres.ReservedSql, fn: () => Promise<T>): Promise<T> {
  await conn.unsafe('BEGIN')
  let result: T
  try {
    result = await fn()
  } catch (error) {
    await conn.unsafe('ROLLBACK').catch(() => {})
    throw error
  }
  await conn.unsafe('COMMIT')
  return result
}
