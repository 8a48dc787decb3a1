import type postgres from 'postgres'

/**
 * Runs `fn` in a transaction on a reserved connection. postgres.js's
 * `begin()` takes a connection of its own from the pool; the migrator and
 * the cleanup instead keep everything on the one connection that holds
 * their advisory lock, so they work even with a pool of one.
 */
export async function inTransaction<T>(conn: postgres.ReservedSql, fn: () => Promise<T>): Promise<T> {
  await conn`BEGIN`
  let result: T
  try {
    result = await fn()
  } catch (error) {
    await conn`ROLLBACK`.catch(() => {})
    throw error
  }
  await conn`COMMIT`
  return result
}
