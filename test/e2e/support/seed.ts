import type postgres from 'postgres'
import { rebuildRollups } from '../../../src/store/rebuild-rollups.ts'
import type { TestApi } from '../../support/api-server.ts'
import type { CaptureBody } from './catalog-data.ts'

/** A createRequest answer (a capture summary, docs/reference/api.md). */
export interface CreatedRequest {
  id: string
  method: string
  path: string
  created_at: string
  has_diff: boolean
  shadow_response: { status_code: number }
}

/** Creates a gate through the API (createGate) and returns it. */
export async function createGate(api: TestApi, name: string, live: string, shadow: string): Promise<{ id: string; name: string }> {
  const res = await api.call('POST', '/gates', { name, live_url: live, shadow_url: shadow })
  if (res.status !== 201) throw new Error(`createGate ${name}: HTTP ${res.status} ${await res.text()}`)
  return ((await res.json()) as { data: { id: string; name: string } }).data
}

/**
 * Posts captures as a proxy in API mode does (createRequest), `concurrency`
 * at a time; the answers come back in the order of `bodies`.
 */
export async function postCaptures(api: TestApi, gateId: string, bodies: readonly CaptureBody[], concurrency = 8): Promise<CreatedRequest[]> {
  const out: CreatedRequest[] = new Array(bodies.length)
  let next = 0
  const worker = async () => {
    while (next < bodies.length) {
      const i = next++
      const res = await api.call('POST', `/gates/${gateId}/requests`, bodies[i])
      if (res.status !== 201) throw new Error(`createRequest #${i}: HTTP ${res.status} ${await res.text()}`)
      out[i] = ((await res.json()) as { data: CreatedRequest }).data
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, bodies.length) }, worker))
  return out
}

export interface BulkOptions {
  /** The captures are spread evenly over this span. @default 23 h */
  readonly spanMs?: number
  /** …which ends this long ago. @default 0 */
  readonly endAgoMs?: number
  /** One capture in this many has a diff (a price), one in 210 of those a shadow 500; 0 for none. @default 10 */
  readonly diffEvery?: number
}

/**
 * Loads `count` captures into a gate with two INSERT ... SELECT
 * generate_series statements, then rebuilds the rollups (docs/storage.md:
 * without it, stats and list totals ignore rows written past the store)
 * and analyzes. Small product bodies; the newest first in `i`.
 */
export async function seedBulkCaptures(sql: postgres.Sql, gateId: string, count: number, options: BulkOptions = {}): Promise<void> {
  const step = (options.spanMs ?? 23 * 3_600_000) / 1000 / count
  const end = (options.endAgoMs ?? 0) / 1000
  const every = options.diffEvery ?? 10
  await sql`
    INSERT INTO requests (id, gate_id, method, path, raw_query, created_at,
                          live_status, live_latency_ms, shadow_status, shadow_latency_ms, has_diff)
    SELECT gen_random_uuid(), ${gateId},
           (ARRAY['GET','GET','GET','GET','GET','POST','PUT','DELETE'])[1 + i % 8],
           '/v2/products/sku-' || (10000 + (i * 7919) % 90000),
           CASE WHEN i % 9 = 0 THEN 'include=stock' ELSE '' END,
           now() - make_interval(secs => ${end}::float8 + i * ${step}::float8),
           CASE WHEN i % 97 = 0 THEN 404 ELSE 200 END, 20 + (i * 31) % 90,
           CASE WHEN ${every}::int > 0 AND i % ${Math.max(1, every * 210)}::int = 0 THEN 500 WHEN i % 97 = 0 THEN 404 ELSE 200 END, 18 + (i * 17) % 140,
           ${every}::int > 0 AND i % ${Math.max(1, every)}::int = 0
    FROM generate_series(1, ${count}::int) AS i`
  await sql`
    INSERT INTO request_payloads (request_id, headers, body, live_response_id, live_headers, live_body, live_created_at,
                                  shadow_response_id, shadow_headers, shadow_body, shadow_created_at, diff)
    SELECT r.id, '{"Accept": ["application/json"]}', ''::bytea,
           gen_random_uuid(), '{"Content-Type": ["application/json"]}',
           convert_to(json_build_object('id', split_part(r.path, '/', 4), 'price', json_build_object('amount', 49.9, 'currency', 'EUR'))::text, 'UTF8'),
           r.created_at,
           gen_random_uuid(), '{"Content-Type": ["application/json"]}',
           convert_to(json_build_object('id', split_part(r.path, '/', 4), 'price', json_build_object('amount', CASE WHEN r.has_diff THEN 52.9 ELSE 49.9 END, 'currency', 'EUR'))::text, 'UTF8'),
           r.created_at,
           CASE WHEN r.shadow_status <> r.live_status
                  THEN '[{"op": "replace", "path": "/status", "value": 500}, {"op": "replace", "path": "/body/price/amount", "value": 52.9}]'::jsonb
                WHEN r.has_diff THEN '[{"op": "replace", "path": "/body/price/amount", "value": 52.9}]'::jsonb
                ELSE '[]'::jsonb END
    FROM requests r
    WHERE r.gate_id = ${gateId} AND NOT EXISTS (SELECT 1 FROM request_payloads p WHERE p.request_id = r.id)`
  await rebuildRollups(sql, gateId)
  // Planner statistics, as a table that grew by ingest would have them; otherwise autovacuum's
  // analyze lands in the middle of the measurements and plans change under them.
  await sql`ANALYZE requests, request_payloads, request_rollups, gate_counters`
}
