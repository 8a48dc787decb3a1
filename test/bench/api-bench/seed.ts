/**
 * Bulk seeding for the read benchmark: one big gate with `rows` captures
 * spread evenly over the last 24 h, plus `otherGates` small gates, written
 * with INSERT ... SELECT generate_series, then rebuildRollups so that stats
 * and list totals see them (docs/storage.md "Rollups"), and the migrator's
 * insight backfill (timed: docs/storage.md "Insight backfill") so that the
 * insight reads do.
 *
 * The shape is the one docs/storage.md "Performance" measured through the
 * stores, so the figures compare: 80% GET, 15% POST, 5% DELETE, 10% with a
 * diff (six patch shapes, and one in eight a shadow that timed out), 5 path
 * families (`/users/<n>`, `/orders/<n>`, `/products/<n>`, `/search`,
 * `/health-check`), response bodies of `bodyBytes`.
 *
 * Usual bulk-load steps, so that a million rows take a minute or two
 * rather than ten on a shared two-core box: the secondary indexes of
 * `requests` are dropped and rebuilt afterwards from their own definitions
 * (read back from pg_indexes, so the schema ends exactly as migrated), and
 * foreign-key triggers are skipped (`session_replication_role = replica`,
 * transaction-local) since every row is consistent by construction.
 */
import type postgres from 'postgres'
import { backfillInsights } from '../../../src/store/insight-backfill.ts'
import { rebuildRollups } from '../../../src/store/rebuild-rollups.ts'

export interface SeedOptions {
  /** Captures in the big gate. */
  readonly rows: number
  /** Gates besides the big one (listGates pages). */
  readonly otherGates: number
  /** Captures in each of the other gates, spread over the last 24 h. */
  readonly rowsPerOtherGate: number
  /** Size of each stored live and shadow body of the big gate's captures. */
  readonly bodyBytes: number
  /** Rows per INSERT statement (one transaction each). @default 100000 */
  readonly batch?: number
  readonly onProgress?: (step: string) => void
}

export interface SeedResult {
  readonly bigGateId: string
  readonly gateIds: string[]
  /** Wall time of the whole seed, ms. */
  readonly ms: number
  /** The insight backfill of the seeded captures (insight-backfill.ts): how many, in how long (ms). */
  readonly backfill: { readonly captures: number; readonly ms: number }
  /** Size of requests and request_payloads with their indexes and TOAST. */
  readonly requestsBytes: number
  readonly payloadsBytes: number
}

/**
 * The patches of the big gate's diffs (one in eight diffing captures has a
 * shadow that timed out instead): six shapes, so that each endpoint has
 * several signatures. Indices and keys vary within a shape; the signature
 * does not.
 */
const DIFF_VARIANTS = [
  [{ op: 'replace', path: '/body/items/3/price', value: 13.37 }],
  [{ op: 'replace', path: '/body/items/0/price', value: 1 }, { op: 'add', path: '/body/items/0/discount', value: 0.1 }],
  [{ op: 'remove', path: '/body/items/7/sku' }],
  [{ op: 'replace', path: '/headers/etag/0', value: 'W/"2"' }],
  [{ op: 'add', path: '/body/stock/sku-15028/reserved', value: 2 }],
  [{ op: 'replace', path: '/status', value: 500 }, { op: 'replace', path: '/body/error', value: 'internal' }],
].map((ops) => JSON.stringify(ops))

/** Path families of the big gate; `/orders/` matches 20% of its rows, `/users/42` 0.2%. */
export const SEED_PATHS = ['/users/', '/orders/', '/products/', '/search', '/health-check'] as const

export async function seedCaptures(sql: postgres.Sql, options: SeedOptions): Promise<SeedResult> {
  const started = performance.now()
  const progress = options.onProgress ?? (() => {})
  const batch = options.batch ?? 100_000
  const [big] = await sql<{ id: string }[]>`
    INSERT INTO gates (id, name, live_url, shadow_url, created_at)
    VALUES (gen_random_uuid(), 'bench-big', 'http://127.0.0.1:9/live', 'http://127.0.0.1:9/shadow', now() - interval '2 days')
    RETURNING id`
  const others = await sql<{ id: string }[]>`
    INSERT INTO gates (id, name, live_url, shadow_url, created_at)
    SELECT gen_random_uuid(), 'bench-gate-' || g, 'http://127.0.0.1:9/live/' || g, 'http://127.0.0.1:9/shadow/' || g,
      now() - interval '1 day' - g * interval '1 second'
    FROM generate_series(1, ${options.otherGates}::int) AS g
    RETURNING id`
  const bigGateId = big!.id

  const indexes = await sql<{ indexname: string; indexdef: string }[]>`
    SELECT indexname, indexdef FROM pg_indexes
    WHERE schemaname = current_schema() AND tablename = 'requests' AND indexname <> 'requests_pkey'`
  for (const index of indexes) await sql.unsafe(`DROP INDEX ${index.indexname}`)

  const body = jsonBody(options.bodyBytes)
  // Oldest first, as ingest writes them: row g at now - 24 h + 1 s + (g - 1) * step.
  const stepMs = (86_400_000 - 2_000) / Math.max(1, options.rows)
  for (let from = 1; from <= options.rows; from += batch) {
    const to = Math.min(options.rows, from + batch - 1)
    await bulk(sql, (tx) => insertBigGateRows(tx, bigGateId, from, to, stepMs, body))
    progress(`inserted ${to.toLocaleString('en-US')} / ${options.rows.toLocaleString('en-US')} captures`)
  }
  if (options.rowsPerOtherGate > 0 && others.length > 0) {
    await bulk(sql, (tx) => insertOtherGateRows(tx, others.map((o) => o.id), options.rowsPerOtherGate))
  }

  for (const index of indexes) {
    await sql.begin(async (tx) => {
      await tx`SELECT set_config('maintenance_work_mem', '256MB', true)`
      await tx.unsafe(index.indexdef)
    })
  }
  progress('indexes rebuilt')
  await rebuildRollups(sql)
  progress('rollups rebuilt')
  // The rows were written without templates, as before migration 0004: the migrator's backfill gives them theirs.
  const backfillStarted = performance.now()
  const backfilled = await backfillInsights(sql, { log: { info: (msg, attrs) => progress(`${msg} ${JSON.stringify(attrs)}`) } })
  const backfillMs = performance.now() - backfillStarted
  progress(`insight backfill: ${backfilled.toLocaleString('en-US')} captures in ${(backfillMs / 1000).toFixed(1)} s`)
  // A freshly loaded table has no statistics and no visibility map: without
  // this the reads would measure the planner's guesses and heap fetches.
  for (const table of ['requests', 'request_payloads', 'request_rollups', 'gate_counters', 'gates', 'endpoint_rollups', 'signature_rollups', 'insight_signatures']) {
    await sql.unsafe(`VACUUM (ANALYZE) ${table}`)
  }
  progress('vacuumed and analyzed')

  const [size] = await sql<{ requests: string; payloads: string }[]>`
    SELECT pg_total_relation_size('requests') AS requests, pg_total_relation_size('request_payloads') AS payloads`
  return {
    bigGateId,
    gateIds: [bigGateId, ...others.map((o) => o.id)],
    ms: performance.now() - started,
    backfill: { captures: backfilled, ms: backfillMs },
    requestsBytes: Number(size!.requests),
    payloadsBytes: Number(size!.payloads),
  }
}

/** One bulk statement in a transaction without FK triggers or a WAL flush wait. */
async function bulk(sql: postgres.Sql, statement: (tx: postgres.TransactionSql) => Promise<unknown>) {
  await sql.begin(async (tx) => {
    await tx`SELECT set_config('synchronous_commit', 'off', true), set_config('session_replication_role', 'replica', true)`
    await statement(tx)
  })
}

function insertBigGateRows(tx: postgres.TransactionSql, gateId: string, from: number, to: number, stepMs: number, body: Buffer) {
  return tx`
    WITH src AS (
      SELECT g, gen_random_uuid() AS id,
        now() - interval '24 hours' + interval '1 second' + (g - 1) * ${stepMs}::float8 * interval '1 millisecond' AS created_at,
        (hashint4(g) & 2147483647) % 100 AS method_roll,
        (hashint4(g + 7919) & 2147483647) % 10 AS diff_roll
      FROM generate_series(${from}::int, ${to}::int) AS g
    ),
    ins AS (
      INSERT INTO requests (id, gate_id, method, path, raw_query, created_at,
        live_status, live_latency_ms, shadow_status, shadow_latency_ms, has_diff)
      SELECT id, ${gateId}::uuid,
        CASE WHEN method_roll < 80 THEN 'GET' WHEN method_roll < 95 THEN 'POST' ELSE 'DELETE' END,
        (${SEED_PATHS as unknown as string[]}::text[])[1 + g % 5] || CASE WHEN g % 5 < 3 THEN (g / 5 % 100)::text ELSE '' END,
        CASE WHEN g % 3 = 0 THEN 'page=' || (g % 7) ELSE '' END,
        created_at, 200, 5 + g % 40,
        CASE WHEN diff_roll = 0 AND g % 8 = 6 THEN 0 WHEN diff_roll = 0 AND g % 4 = 0 THEN 500 ELSE 200 END,
        6 + g % 50 + CASE WHEN g % 97 = 0 THEN 900 ELSE 0 END,
        diff_roll = 0
      FROM src
      RETURNING id, created_at, has_diff, shadow_status, (hashtext(id::text) & 2147483647) % 6 AS variant
    )
    INSERT INTO request_payloads (request_id, headers, body, live_response_id, live_headers, live_body, live_created_at,
      shadow_response_id, shadow_headers, shadow_body, shadow_created_at, diff)
    SELECT id, '{"Accept": ["application/json"]}', '',
      gen_random_uuid(), '{"Content-Type": ["application/json"]}', ${body}, created_at,
      gen_random_uuid(), '{"Content-Type": ["application/json"]}',
      CASE WHEN shadow_status = 0 THEN convert_to('shadow: timed out after 5s', 'UTF8') ELSE ${body} END, created_at,
      CASE WHEN NOT has_diff OR shadow_status = 0 THEN '[]'::jsonb ELSE ((${DIFF_VARIANTS}::text[])[1 + variant])::jsonb END
    FROM ins`
}

function insertOtherGateRows(tx: postgres.TransactionSql, gateIds: string[], perGate: number) {
  const stepMs = 86_400_000 / (perGate + 1)
  return tx`
    WITH ins AS (
      INSERT INTO requests (id, gate_id, method, path, raw_query, created_at,
        live_status, live_latency_ms, shadow_status, shadow_latency_ms, has_diff)
      SELECT gen_random_uuid(), gate.id, 'GET', '/items/' || g, '',
        now() - g * ${stepMs}::float8 * interval '1 millisecond', 200, 12, 200, 15, g % 10 = 0
      FROM unnest(${gateIds}::uuid[]) AS gate(id), generate_series(1, ${perGate}::int) AS g
      RETURNING id, created_at
    )
    INSERT INTO request_payloads (request_id, headers, body, live_response_id, live_headers, live_body, live_created_at,
      shadow_response_id, shadow_headers, shadow_body, shadow_created_at, diff)
    SELECT id, '{}', '', gen_random_uuid(), '{}', '', created_at, gen_random_uuid(), '{}', '', created_at, '[]' FROM ins`
}

/** A JSON document of about `bytes` bytes (the same on every seeded row; PostgreSQL compresses it). */
function jsonBody(bytes: number): Buffer {
  const items: unknown[] = []
  let text = '{"items":[]}'
  for (let i = 0; text.length < bytes; i++) {
    items.push({ id: 1000 + i, sku: `SKU-${(i * 7919) % 100_000}`, name: `Product number ${i}`, price: (i * 1234.5) / 100 })
    text = JSON.stringify({ items })
  }
  return Buffer.from(text)
}
