import { afterAll, beforeAll } from 'bun:test'
import type postgres from 'postgres'
import { createGateStore, type GateStore } from '../../../src/store/gate-store.ts'
import { createRequestStore, type RequestStore } from '../../../src/store/request-store.ts'
import type { CaptureInput, HeaderMap, PatchOp } from '../../../src/store/rows.ts'
import { createStatsStore, type StatsStore } from '../../../src/store/stats-store.ts'
import { createTestDatabase, DATABASE_HOOK_TIMEOUT_MS, type Backend, type TestDatabase } from '../../support/database.ts'
import { insightDrift } from '../../support/insight-drift.ts'

export interface Stores {
  readonly t: TestDatabase
  readonly gates: GateStore
  readonly requests: RequestStore
  readonly stats: StatsStore
}

/**
 * A test database of `kind` with the stores on it, made before the suite's
 * tests (handed to `ready`) and dropped after them.
 */
export function useStores(kind: Backend, ready: (stores: Stores) => void): void {
  let t: TestDatabase | undefined
  beforeAll(async () => {
    t = await createTestDatabase(kind)
    const sql = t.db.sql
    ready({ t, gates: createGateStore(sql), requests: createRequestStore(sql), stats: createStatsStore(sql) })
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t?.drop())
}

let gateSeq = 0

/** Creates a gate whose name and URL pair no other call uses; resolves with its id. */
export async function newGate(gates: GateStore): Promise<string> {
  const n = ++gateSeq
  return (await gates.create({ name: `gate-${n}`, live_url: `http://live/${n}`, shadow_url: `http://shadow/${n}` })).id
}

export interface CaptureSpec {
  id?: string
  method?: string
  path?: string
  raw_query?: string
  created_at?: Date
  has_diff?: boolean
  body?: Uint8Array
  headers?: HeaderMap
  diff?: PatchOp[]
}

/** A complete capture with defaults for everything the test does not care about. */
export function capture(spec: CaptureSpec = {}): CaptureInput {
  const created = spec.created_at ?? new Date()
  const hasDiff = spec.has_diff ?? false
  return {
    id: spec.id ?? crypto.randomUUID(),
    method: spec.method ?? 'GET',
    path: spec.path ?? '/api/items',
    raw_query: spec.raw_query ?? '',
    headers: spec.headers ?? { Accept: ['application/json'] },
    body: spec.body ?? new Uint8Array(),
    created_at: created,
    live_response: {
      id: crypto.randomUUID(),
      status_code: 200,
      headers: { 'Content-Type': ['application/json'] },
      body: new TextEncoder().encode('{"a":1}'),
      latency_ms: 12,
      created_at: created,
    },
    shadow_response: {
      id: crypto.randomUUID(),
      status_code: hasDiff ? 500 : 200,
      headers: { 'Content-Type': ['application/json'] },
      body: new TextEncoder().encode(hasDiff ? '{"a":2}' : '{"a":1}'),
      latency_ms: 15,
      created_at: created,
    },
    has_diff: hasDiff,
    diff: spec.diff ?? (hasDiff ? [{ op: 'replace', path: '/body/a', value: 2 }] : []),
  }
}

/** Inserts captures a few at a time (both backends, without flooding PGlite's queue). */
export async function insertAll(store: RequestStore, gateId: string, specs: CaptureSpec[]): Promise<CaptureInput[]> {
  const captures = specs.map(capture)
  for (let i = 0; i < captures.length; i += 20) {
    await Promise.all(captures.slice(i, i + 20).map((c) => store.insert(gateId, c)))
  }
  return captures
}

/** `base` moved by `ms`. */
export function at(base: Date, ms: number): Date {
  return new Date(base.getTime() + ms)
}

export const SECOND = 1000
export const MINUTE = 60 * SECOND
export const HOUR = 60 * MINUTE

/**
 * The invariant the rollups keep: per minute and method, and per path and
 * method, the sum over shards equals the stored rows, and the gate's
 * counter equals its row count; and the insight rollups' (insightDrift).
 */
export async function rollupDrift(sql: postgres.Sql, gateId: string): Promise<postgres.Row[]> {
  const rows = await sql`
    WITH rolled AS (
      SELECT bucket, method, sum(request_count) AS n, sum(diff_count) AS d
      FROM request_rollups WHERE gate_id = ${gateId} GROUP BY 1, 2
    ), actual AS (
      SELECT request_bucket(created_at) AS bucket, method, count(*) AS n, count(*) FILTER (WHERE has_diff) AS d
      FROM requests WHERE gate_id = ${gateId} GROUP BY 1, 2
    )
    SELECT coalesce(r.bucket, a.bucket) AS bucket, coalesce(r.method, a.method) AS method,
      r.n AS rolled_n, a.n AS actual_n, r.d AS rolled_d, a.d AS actual_d
    FROM rolled r FULL JOIN actual a ON a.bucket = r.bucket AND a.method = r.method
    WHERE coalesce(r.n, 0) <> coalesce(a.n, 0) OR coalesce(r.d, 0) <> coalesce(a.d, 0)
    UNION ALL
    SELECT NULL, 'path ' || coalesce(r.path, a.path) || ' ' || coalesce(r.method, a.method),
      r.n, a.n, r.d, a.d
    FROM (SELECT path, method, sum(request_count) AS n, sum(diff_count) AS d
          FROM request_path_rollups WHERE gate_id = ${gateId} GROUP BY 1, 2) r
    FULL JOIN (SELECT path, method, count(*) AS n, count(*) FILTER (WHERE has_diff) AS d
          FROM requests WHERE gate_id = ${gateId} GROUP BY 1, 2) a ON a.path = r.path AND a.method = r.method
    WHERE coalesce(r.n, 0) <> coalesce(a.n, 0) OR coalesce(r.d, 0) <> coalesce(a.d, 0)
    UNION ALL
    SELECT NULL, 'counter', (SELECT coalesce(sum(request_count), 0) FROM gate_counters WHERE gate_id = ${gateId}),
      (SELECT count(*) FROM requests WHERE gate_id = ${gateId}), NULL, NULL
    WHERE (SELECT coalesce(sum(request_count), 0) FROM gate_counters WHERE gate_id = ${gateId})
      <> (SELECT count(*) FROM requests WHERE gate_id = ${gateId})`
  return [...rows, ...(await insightDrift(sql, gateId))]
}
