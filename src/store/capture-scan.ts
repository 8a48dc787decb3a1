import type postgres from 'postgres'
import type { HeaderMap, NoiseResult, SortOrder } from './rows.ts'
import { keysetPages, type KeyRow, type KeysetCursor } from './keyset-batch.ts'

/** A stored capture as re-diffing reads it: what its comparison and noise check are computed from, and what they were. */
export interface ScannedCapture {
  id: string
  /** created_at as PostgreSQL writes it, microseconds kept (a keyset cursor). */
  at: string
  method: string
  template: string | null
  has_diff: boolean
  signature_id: string | null
  noise_result: NoiseResult | null
  noise_signature_id: string | null
  live_status: number
  live_headers: HeaderMap
  live_body: Uint8Array
  shadow_status: number
  shadow_headers: HeaderMap
  shadow_body: Uint8Array
  repeat_status: number | null
  repeat_headers: HeaderMap | null
  repeat_body: Uint8Array | null
}

/** Which captures a scan reads, and where it starts. */
export interface ScanRange {
  /** created_at at least this (RFC 3339 text, cast by the database). */
  readonly from: string
  /** created_at at most this; no end when absent. */
  readonly to?: string
  /** By created_at, then id. */
  readonly order: SortOrder
  /** Start after this key (a resumed scan). */
  readonly after?: KeysetCursor
}

/** How much one page of a scan holds. */
export interface ScanBounds {
  /** Most captures per page. @default 250 */
  readonly rows?: number
  /** Most body bytes per page, always at least one capture. @default 8 MiB */
  readonly bytes?: number
  /** Captures in all, at most. @default no limit */
  readonly limit?: number
}

type Sql = postgres.Sql | postgres.ReservedSql

/**
 * A gate's captures in a range, page by page, by keyset on (created_at,
 * id) through requests_gate_created_idx, as the export reads them
 * (docs/storage.md "Export"): each call gives the next page, `undefined`
 * at the end. A page is the keys and body sizes of the next `rows`
 * captures, then the payloads of as many as fit in `bytes`, so memory
 * holds one bounded page whatever SVC_APP_MAX_BODY_SIZE allows. No
 * snapshot is held between pages.
 */
export function scanCaptures(sql: Sql, gateId: string, range: ScanRange, bounds: ScanBounds = {}): () => Promise<ScannedCapture[] | undefined> {
  return keysetPages<ScannedCapture>(
    sql,
    range.order,
    { rows: bounds.rows ?? 250, bytes: bounds.bytes ?? 8 * 1024 * 1024, limit: bounds.limit, after: range.after },
    {
      keys: (after, direction, count) => sql<KeyRow[]>`
        SELECT k.id, k.at,
          octet_length(p.live_body) + octet_length(p.shadow_body) + coalesce(octet_length(p.repeat_body), 0) AS size
        FROM (
          SELECT r.id, r.created_at, r.created_at::text AS at FROM requests r
          WHERE r.gate_id = ${gateId} AND r.created_at >= ${range.from}::text::timestamptz
            ${range.to === undefined ? sql`` : sql`AND r.created_at <= ${range.to}::text::timestamptz`} ${after}
          ORDER BY r.created_at ${direction}, r.id ${direction}
          LIMIT ${count}
        ) AS k JOIN request_payloads p ON p.request_id = k.id
        ORDER BY k.created_at ${direction}, k.id ${direction}`,
      // A capture pruned between the two reads is simply absent (the page may be empty); the cursor has moved past it.
      rows: (ids, direction) => sql<ScannedCapture[]>`
        SELECT r.id, r.created_at::text AS at, r.method, r.template, r.has_diff, r.signature_id, r.noise_result, r.noise_signature_id,
          r.live_status, p.live_headers, p.live_body, r.shadow_status, p.shadow_headers, p.shadow_body,
          p.repeat_status, p.repeat_headers, p.repeat_body
        FROM requests r JOIN request_payloads p ON p.request_id = r.id
        WHERE r.id = ANY(${ids}::uuid[]) AND r.gate_id = ${gateId}
        ORDER BY r.created_at ${direction}, r.id ${direction}`,
    },
  )
}

/**
 * A page source that keeps the next page's read in flight while the
 * caller works on the current one, so that reading (the database) and
 * comparing (this process) overlap. At most two pages are held.
 */
export function prefetched<T>(next: () => Promise<T | undefined>): () => Promise<T | undefined> {
  const ahead = () => {
    const read = next()
    // A read the caller abandons (it failed, or stopped) must not become an unhandled rejection.
    read.catch(() => {})
    return read
  }
  let pending: Promise<T | undefined> | undefined = ahead()
  return async () => {
    if (pending === undefined) return undefined
    const page = await pending
    pending = page === undefined ? undefined : ahead()
    return page
  }
}
