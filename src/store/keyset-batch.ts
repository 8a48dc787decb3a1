/**
 * The keyset paging shared by the export and the re-diff scan: pages of
 * a gate's captures in (created_at, id) order, each chosen in two steps:
 * the keys of the next captures with their body bytes, then the payloads
 * of as many of them as fit a byte bound (always at least one, so that a
 * single capture above the bound still moves the cursor on). Each page
 * starts after the last key of the one before, through the (gate_id,
 * created_at, id) index, so a page costs the same at the millionth
 * capture as at the first, and no snapshot is held between pages.
 */
import type postgres from 'postgres'
import type { SortOrder } from './rows.ts'

/** One capture's key: created_at as PostgreSQL writes it (microseconds kept, unlike a JS Date) and its body bytes. */
export interface KeyRow {
  readonly id: string
  readonly at: string
  readonly size: string
}

/** Where a page starts: after this capture's key. */
export interface KeysetCursor {
  readonly at: string
  readonly id: string
}

/** The keys of a batch: the first ones whose sizes add up to at most `maxBytes`, and at least one. */
export function keysWithinBytes(keys: readonly KeyRow[], maxBytes: number): KeyRow[] {
  let bytes = 0
  let take = 0
  while (take < keys.length && (take === 0 || bytes + Number(keys[take]!.size) <= maxBytes)) bytes += Number(keys[take++]!.size)
  return keys.slice(0, take)
}

type Sql = postgres.Sql | postgres.ReservedSql
/** A piece of SQL to splice in, as either kind of connection makes it. */
type Fragment = postgres.PendingQuery<postgres.Row[]> | postgres.PendingQuery<(postgres.Row & Iterable<postgres.Row>)[]>

/** The two reads of a page, written by each user: which captures, which columns. */
export interface KeysetReads<T> {
  /**
   * The keys and body sizes of the next `count` captures, `after` (a
   * condition on `r.created_at, r.id`) added to the WHERE clause of
   * `requests r`, ordered by created_at then id in `direction`.
   */
  keys(after: Fragment, direction: Fragment, count: number): Promise<KeyRow[]>
  /** The captures of these ids, ordered by created_at then id in `direction`; one deleted meanwhile is left out. */
  rows(ids: string[], direction: Fragment): Promise<T[]>
}

export interface KeysetBounds {
  /** Most captures per page. */
  readonly rows: number
  /** Most body bytes per page, always at least one capture. */
  readonly bytes: number
  /** Captures in all, at most. @default no limit */
  readonly limit?: number
  /** Start after this key (a resumed scan). */
  readonly after?: KeysetCursor
}

/** A cursor over the pages: each call gives the next one, `undefined` once nothing is left. */
export function keysetPages<T>(sql: Sql, order: SortOrder, bounds: KeysetBounds, reads: KeysetReads<T>): () => Promise<T[] | undefined> {
  const descending = order === 'desc'
  const direction = sql.unsafe(descending ? 'DESC' : 'ASC')
  let cursor = bounds.after
  let left = bounds.limit ?? Infinity

  return async () => {
    if (left <= 0) return undefined
    // The cursor goes as text, cast by the database: a timestamptz parameter would pass through a JS Date and lose its microseconds.
    const after =
      cursor === undefined
        ? sql``
        : descending
          ? sql`AND (r.created_at, r.id) < (${cursor.at}::text::timestamptz, ${cursor.id}::uuid)`
          : sql`AND (r.created_at, r.id) > (${cursor.at}::text::timestamptz, ${cursor.id}::uuid)`
    const keys = await reads.keys(after, direction, Math.min(bounds.rows, left))
    if (keys.length === 0) return undefined
    const chosen = keysWithinBytes(keys, bounds.bytes)
    cursor = { at: chosen.at(-1)!.at, id: chosen.at(-1)!.id }
    left -= chosen.length
    return reads.rows(
      chosen.map((key) => key.id),
      direction,
    )
  }
}
