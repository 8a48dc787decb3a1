/**
 * The keyset paging shared by the export and the re-diff scan: a page of
 * capture keys in (created_at, id) order with each capture's body bytes,
 * of which a batch takes as many as fit a byte bound (always at least one,
 * so that a single capture above the bound still moves the cursor on).
 */

/** One capture's key: created_at as PostgreSQL writes it (microseconds kept, unlike a JS Date) and its body bytes. */
export interface KeyRow {
  readonly id: string
  readonly at: string
  readonly size: string
}

/** The keys of a batch: the first ones whose sizes add up to at most `maxBytes`, and at least one. */
export function keysWithinBytes(keys: readonly KeyRow[], maxBytes: number): KeyRow[] {
  let bytes = 0
  let take = 0
  while (take < keys.length && (take === 0 || bytes + Number(keys[take]!.size) <= maxBytes)) bytes += Number(keys[take++]!.size)
  return keys.slice(0, take)
}
