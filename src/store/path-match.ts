import type postgres from 'postgres'
import { pathPattern } from './like-pattern.ts'
import { toNumber } from './rows.ts'

/**
 * How listRequests' `path` filter selects rows (docs/storage.md "Rollups: why
 * and how exact", path filter). The pattern is an unanchored substring, which
 * no btree can search; but a gate has far fewer distinct paths than requests,
 * and request_path_rollups lists them. So the pattern is matched against those
 * first, and the rows are then selected by equality on the matching paths,
 * through the (gate_id, left(path, 512), created_at) index.
 *
 * - `none`: no stored path matches; nothing to read.
 * - `paths`: every matching path, each shorter than 512 characters, so
 *   that `left(path, 512) = p` holds exactly when `path = p` (a longer
 *   path's first 512 characters are 512 long), and few enough to look up;
 *   with their stored requests and diffs summed over the rollups read, so
 *   that a total without a time range needs no other query.
 * - `pattern`: too many distinct paths match, or a long one does: the rows
 *   are matched with LIKE as they are read.
 */
export type PathMatch =
  | { readonly kind: 'none' }
  | { readonly kind: 'paths'; readonly paths: readonly string[]; readonly requests: number; readonly diffs: number }
  | { readonly kind: 'pattern'; readonly pattern: string }

/** Beyond this many distinct matching paths, looking each up costs more than matching rows as they are read. */
export const MAX_LOOKUP_PATHS = 1000

/** Paths this long or longer are not told apart by the index's `left(path, 512)`. */
const INDEXED_PREFIX = 512

/**
 * The distinct paths of the gate that match `path`, among those stored
 * with one of `methods` when given, with their totals. A rollup row exists for every stored
 * (path, method), so no matching row is missed; a row left with a zero
 * count only adds a path that selects nothing.
 */
export async function resolvePathMatch(
  sql: postgres.Sql,
  gateId: string,
  path: string,
  methods: readonly string[] | undefined,
): Promise<PathMatch> {
  const pattern = pathPattern(path)
  const rows = await sql<{ path: string; requests: string; diffs: string }[]>`
    SELECT path, sum(request_count) AS requests, sum(diff_count) AS diffs FROM request_path_rollups
    WHERE gate_id = ${gateId} AND path LIKE ${pattern}
      ${methods === undefined ? sql`` : sql`AND method = ANY(${methods as string[]}::text[])`}
    GROUP BY path
    LIMIT ${MAX_LOOKUP_PATHS + 1}`
  if (rows.length === 0) return { kind: 'none' }
  // JavaScript counts UTF-16 units, never fewer than PostgreSQL's characters: a doubt falls back to LIKE.
  if (rows.length > MAX_LOOKUP_PATHS || rows.some((row) => row.path.length >= INDEXED_PREFIX)) {
    return { kind: 'pattern', pattern }
  }
  let requests = 0
  let diffs = 0
  for (const row of rows) {
    requests += toNumber(row.requests)
    diffs += toNumber(row.diffs)
  }
  return { kind: 'paths', paths: rows.map((row) => row.path), requests, diffs }
}

/**
 * The WHERE condition on requests for a resolved path filter (`none`
 * selects nothing). `inPathOrder`: the rows are read in path order
 * (sort=path), so bounds on the path let that scan start at the first
 * matching path and stop after the last. In any other order they only
 * mislead the planner's estimate (it multiplies their selectivities).
 */
export function pathCondition(sql: postgres.Sql, match: PathMatch, inPathOrder: boolean): postgres.PendingQuery<postgres.Row[]> {
  switch (match.kind) {
    case 'none':
      return sql`AND false`
    case 'pattern':
      return sql`AND path LIKE ${match.pattern}`
    case 'paths': {
      // One path as a plain equality: the index then gives its rows in created_at order.
      if (match.paths.length === 1) return sql`AND left(path, 512) = ${match.paths[0]!}`
      if (!inPathOrder) return sql`AND left(path, 512) = ANY(${match.paths as string[]}::text[])`
      const [first, last] = byteOrderBounds(match.paths)
      return sql`AND left(path, 512) = ANY(${match.paths as string[]}::text[])
        AND left(path, 512) >= ${first} AND left(path, 512) <= ${last}`
    }
  }
}

/** The least and greatest path in byte order, which is the order of the "C" collation of `path`. */
function byteOrderBounds(paths: readonly string[]): [string, string] {
  let first = paths[0]!
  let last = first
  let firstBytes = Buffer.from(first)
  let lastBytes = firstBytes
  for (const path of paths) {
    const bytes = Buffer.from(path)
    if (Buffer.compare(bytes, firstBytes) < 0) [first, firstBytes] = [path, bytes]
    if (Buffer.compare(bytes, lastBytes) > 0) [last, lastBytes] = [path, bytes]
  }
  return [first, last]
}
