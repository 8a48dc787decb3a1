import { parseJson } from '../diff/large-integer.ts'
import type postgres from 'postgres'
import { ConflictError, InvalidBodyError, NotFoundError } from '../errors/app-error.ts'
import { listRequests, summaryColumns, toSummary, type RequestListQuery, type SummaryRow } from './request-list.ts'
import {
  isoString,
  storableJsonText,
  toNumber,
  type CaptureInput,
  type HeaderMap,
  type Page,
  type PatchOp,
  type RequestDetail,
  type RequestSummary,
} from './rows.ts'
import { isUuid } from '../net/request-id.ts'
import { dataException, SQLSTATE, sqlState } from './sql-errors.ts'
import { createInsertBatcher, type Outcome } from './insert-batcher.ts'
import { captureInsight, type CaptureInsight } from './capture-insight.ts'
import { createInsightCatalog, type InsightCatalogOptions } from './insight-catalog.ts'
import { captureDigest } from './capture-digest.ts'

export { REQUEST_SORT_KEYS, type RequestListQuery, type RequestSortKey } from './request-list.ts'

export interface RequestStore {
  /**
   * Stores a capture with its payload and counts it in the rollups, in one
   * statement. Idempotent on `id`: the same id under the same gate with the
   * same content (captureDigest) again stores and counts nothing and
   * returns the stored summary with `created: false`.
   * @throws ConflictError when the id exists under another gate, or with other content.
   * @throws NotFoundError when the gate does not exist (or is being deleted).
   * @throws InvalidBodyError when a created_at string is not a timestamp, or
   *   the database refuses another value of the capture (a data exception).
   */
  insert(gateId: string, capture: CaptureInput): Promise<{ summary: RequestSummary; created: boolean }>
  /**
   * A page of the gate's requests and the number of matches
   * (docs/reference/api.md "listRequests").
   */
  list(gateId: string, query: RequestListQuery): Promise<Page<RequestSummary>>
  /** One request of the gate with its payload; undefined when absent or under another gate. */
  get(gateId: string, id: string): Promise<RequestDetail | undefined>
}

export interface DetailRow extends SummaryRow {
  gate_id: string
  headers: HeaderMap
  body: Uint8Array
  live_response_id: string
  live_headers: HeaderMap
  live_body: Uint8Array
  live_created_at: Date
  shadow_response_id: string
  shadow_headers: HeaderMap
  shadow_body: Uint8Array
  shadow_created_at: Date
  /** jsonb as text, parsed by parseJson: postgres.js's JSON.parse would round a large integer (large-integer.ts). */
  diff: string
  repeat_response_id: string | null
  repeat_status: number | null
  repeat_headers: HeaderMap | null
  repeat_body: Uint8Array | null
  repeat_latency_ms: string | number | null
  repeat_created_at: Date | null
  noise: string | null
}

/** The columns of a DetailRow, from requests `r` joined with request_payloads `p`. */
export function detailColumns(sql: postgres.Sql): postgres.PendingQuery<postgres.Row[]> {
  return sql`r.gate_id, ${summaryColumns(sql)},
    p.headers, p.body, p.live_response_id, p.live_headers, p.live_body, p.live_created_at,
    p.shadow_response_id, p.shadow_headers, p.shadow_body, p.shadow_created_at, p.diff::text AS diff,
    p.repeat_response_id, p.repeat_status, p.repeat_headers, p.repeat_body, p.repeat_latency_ms,
    p.repeat_created_at, p.noise::text AS noise`
}

/** Grouped inserts (docs/storage.md "Ingest"); `maxBatch: 1` writes one statement per capture. */
export interface RequestStoreOptions {
  /** Most captures per statement (default 32). */
  maxBatch?: number
  /** How long the first queued capture waits for others, in ms (default 2). */
  maxWaitMs?: number
  /** Capture inserts wait for their WAL flush (SVC_APP_DATABASE_DURABLE_CAPTURES). @default false */
  durableCaptures?: boolean
  /** The template and signature caps and their report (insight-catalog.ts). */
  insights?: InsightCatalogOptions
}

type InsertResult = { summary: RequestSummary; created: boolean }
interface QueuedInsert {
  gateId: string
  capture: CaptureInput
  /** captureDigest(capture), stored with it. */
  digest: Uint8Array
  /** Its endpoint template and signature, admitted by the gate's caps. */
  insight: CaptureInsight
}

export function createRequestStore(sql: postgres.Sql, options: RequestStoreOptions = {}): RequestStore {
  const synchronousCommit = options.durableCaptures ? 'on' : 'off'
  const catalog = createInsightCatalog(sql, options.insights)
  async function stored(gateId: string, id: string, digest: Uint8Array) {
    const [row] = await sql<(SummaryRow & { gate_id: string; content_hash: Uint8Array | null })[]>`
      SELECT r.gate_id, ${summaryColumns(sql)}, p.content_hash
      FROM requests r LEFT JOIN request_payloads p ON p.request_id = r.id
      WHERE r.id = ${id}`
    if (!row) return undefined
    if (row.gate_id !== gateId) throw new ConflictError(`a request with id ${id} already exists under another gate`)
    // A row stored before content hashes (NULL) is taken as the same capture, as it was then.
    if (row.content_hash !== null && !sameBytes(row.content_hash, digest)) {
      throw new ConflictError(`a capture with id ${id} exists with different content (docs/storage.md "Ingest", capture identity)`)
    }
    return toSummary(row)
  }

  /** The result for an id that ON CONFLICT DO NOTHING skipped. */
  async function existing({ gateId, capture, digest }: QueuedInsert): Promise<InsertResult> {
    // The id was already there: same gate and content → the stored summary; else 409.
    const summary = await stored(gateId, capture.id, digest)
    if (summary) return { summary, created: false }
    // Pruned or cascaded away in between: the id was taken a moment ago.
    throw new ConflictError(`the request with id ${capture.id} was removed while being stored again`)
  }

  async function insertOne(item: QueuedInsert): Promise<InsertResult> {
    const { gateId } = item
    let inserted: SummaryRow[]
    try {
      inserted = await sql<SummaryRow[]>`${insertStatement(sql, [item], synchronousCommit)}`
    } catch (error) {
      switch (sqlState(error)) {
        case SQLSTATE.foreignKeyViolation:
          throw new NotFoundError(`no gate with id ${gateId}`)
        case SQLSTATE.invalidDatetimeFormat:
        case SQLSTATE.datetimeFieldOverflow:
          throw new InvalidBodyError('created_at must be an RFC 3339 date-time', 'created_at')
        default: {
          // Any other value of this capture the database refuses: the
          // client's data, whichever field it was in (PostgreSQL does not say).
          const reason = dataException(error)
          if (reason !== undefined) throw new InvalidBodyError(`the capture cannot be stored: ${reason}`)
          throw error
        }
      }
    }
    const [row] = inserted
    if (row) return { summary: toSummary(row), created: true }
    return existing(item)
  }

  /** One statement for the batch (distinct ids); rejects as a whole on any error. */
  async function insertMany(items: readonly QueuedInsert[]): Promise<Outcome<InsertResult>[]> {
    const rows = await sql<SummaryRow[]>`${insertStatement(sql, items, synchronousCommit)}`
    const byId = new Map(rows.map((row) => [row.id.toLowerCase(), row]))
    return Promise.all(
      items.map(async (item): Promise<Outcome<InsertResult>> => {
        const row = byId.get(item.capture.id.toLowerCase())
        if (row) return { ok: true, value: { summary: toSummary(row), created: true } }
        try {
          return { ok: true, value: await existing(item) }
        } catch (error) {
          return { ok: false, error }
        }
      }),
    )
  }

  const batcher = createInsertBatcher<QueuedInsert, InsertResult>({
    maxSize: options.maxBatch ?? 32,
    maxWaitMs: options.maxWaitMs ?? 2,
    key: (item) => item.capture.id.toLowerCase(),
    writeBatch: insertMany,
    single: insertOne,
  })

  return {
    async insert(gateId, capture) {
      if (!isUuid(gateId)) throw new NotFoundError(`no gate with id ${gateId}`)
      if (!isUuid(capture.id)) throw new InvalidBodyError('id must be a UUID', 'id')
      const insight = await captureInsight(catalog, gateId, capture)
      return batcher.add({ gateId, capture, digest: captureDigest(capture), insight })
    },

    list: (gateId, query) => (isUuid(gateId) ? listRequests(sql, gateId, query) : Promise.resolve({ items: [], total: 0 })),

    async get(gateId, id) {
      if (!isUuid(gateId) || !isUuid(id)) return undefined
      const [row] = await sql<DetailRow[]>`
        SELECT ${detailColumns(sql)}
        FROM requests r JOIN request_payloads p ON p.request_id = r.id
        WHERE r.id = ${id} AND r.gate_id = ${gateId}`
      return row && toDetail(row)
    },
  }
}

/**
 * The insert of captures with distinct ids (one, or a batch), their
 * payloads, rollup minutes, path rollups and gate counters as one
 * statement. Each step reads the previous one's RETURNING, so nothing is
 * counted for an id that already existed (ON CONFLICT DO NOTHING returns no
 * row) and counts stay exact when some ids of a batch did. Rows are
 * inserted in id order and rollup, path rollup and counter rows in key
 * order, after the previous step's rows, so two concurrent statements take
 * their row locks in the same order (requests, rollups, path rollups,
 * counters). The rollup, path rollup and counter rows are this
 * connection's shard (ingest_shard()), so concurrent inserts into one gate
 * rarely wait for each other. The insight rollups (endpoints, noise,
 * signatures) are counted by the statement's trigger on requests, last,
 * from the rows actually inserted (sql/0007_insight_insert_trigger.sql).
 * Any error (unknown gate, bad timestamp, deadlock) rolls back the whole
 * statement.
 *
 * synchronous_commit is `synchronousCommit` for this transaction only,
 * 'off' unless SVC_APP_DATABASE_DURABLE_CAPTURES is set: the commit does
 * not wait for its WAL flush, so the hot rollup and counter rows of a busy
 * gate are held for microseconds instead of a disk flush. A database crash
 * can lose the last fraction of a second of acknowledged captures, never
 * leave counts out of step with rows (README "Decisions", ingest
 * durability). 'on' waits for the flush, whatever the server's default.
 */
function insertStatement(sql: postgres.Sql, items: readonly QueuedInsert[], synchronousCommit: 'on' | 'off') {
  const values = items
    .map(({ gateId, capture: c, digest, insight }) => {
      const live = c.live_response
      const shadow = c.shadow_response
      const signature = insight.signature
      const check = c.noise_check
      const repeat = check?.repeat
      return sql`(${c.id}::uuid, ${gateId}::uuid, ${c.method}::text, ${c.path}::text, ${c.raw_query}::text,
        ${timestamp(c.created_at)}::text::timestamptz, ${live.status_code}::integer, ${live.latency_ms}::bigint,
        ${shadow.status_code}::integer, ${shadow.latency_ms}::bigint, ${c.has_diff}::boolean,
        ${storableJsonText(c.headers)}::text::jsonb, ${c.body}::bytea,
        ${live.id}::uuid, ${storableJsonText(live.headers)}::text::jsonb, ${live.body}::bytea,
        ${timestamp(live.created_at)}::text::timestamptz,
        ${shadow.id}::uuid, ${storableJsonText(shadow.headers)}::text::jsonb, ${shadow.body}::bytea,
        ${timestamp(shadow.created_at)}::text::timestamptz, ${storableJsonText(c.diff)}::text::jsonb,
        ${digest}::bytea, ${insight.template}::text, ${signature?.id ?? null}::text,
        ${check?.result ?? null}::text, ${insight.noiseSignature?.id ?? null}::text, ${repeat?.id ?? null}::uuid,
        ${repeat?.status_code ?? null}::integer, ${repeat ? storableJsonText(repeat.headers) : null}::text::jsonb,
        ${repeat?.body ?? null}::bytea, ${repeat?.latency_ms ?? null}::bigint,
        ${repeat ? timestamp(repeat.created_at) : null}::text::timestamptz,
        ${check !== undefined && check.result !== 'error' ? storableJsonText(check.ops) : null}::text::jsonb)`
    })
    .reduce((list, row) => sql`${list}, ${row}`)
  return sql`
    WITH cfg AS (SELECT set_config('synchronous_commit', ${synchronousCommit}, true) AS value,
      set_config('plan_cache_mode', 'auto', true) AS plans),
    v (id, gate_id, method, path, raw_query, created_at, live_status, live_latency_ms,
      shadow_status, shadow_latency_ms, has_diff, headers, body,
      live_response_id, live_headers, live_body, live_created_at,
      shadow_response_id, shadow_headers, shadow_body, shadow_created_at, diff, content_hash,
      template, signature_id, noise_result, noise_signature_id, repeat_response_id, repeat_status,
      repeat_headers, repeat_body, repeat_latency_ms, repeat_created_at, noise) AS (VALUES ${values}),
    ins AS (
      INSERT INTO requests (id, gate_id, method, path, raw_query, created_at,
        live_status, live_latency_ms, shadow_status, shadow_latency_ms, has_diff, template, signature_id,
        noise_result, noise_signature_id)
      SELECT v.id, v.gate_id, v.method, v.path, v.raw_query, v.created_at,
        v.live_status, v.live_latency_ms, v.shadow_status, v.shadow_latency_ms, v.has_diff, v.template, v.signature_id,
        v.noise_result, v.noise_signature_id
      FROM v, cfg
      ORDER BY v.id
      ON CONFLICT (id) DO NOTHING
      RETURNING ${summaryColumns(sql)}, gate_id, noise_result, noise_signature_id
    ),
    payload AS (
      INSERT INTO request_payloads (request_id, headers, body,
        live_response_id, live_headers, live_body, live_created_at,
        shadow_response_id, shadow_headers, shadow_body, shadow_created_at, diff, content_hash,
        repeat_response_id, repeat_status, repeat_headers, repeat_body, repeat_latency_ms, repeat_created_at, noise)
      SELECT v.id, v.headers, v.body,
        v.live_response_id, v.live_headers, v.live_body, v.live_created_at,
        v.shadow_response_id, v.shadow_headers, v.shadow_body, v.shadow_created_at, v.diff, v.content_hash,
        v.repeat_response_id, v.repeat_status, v.repeat_headers, v.repeat_body, v.repeat_latency_ms,
        v.repeat_created_at, v.noise
      FROM ins JOIN v ON v.id = ins.id
    ),
    rollup AS (
      INSERT INTO request_rollups AS r (gate_id, bucket, method, shard, request_count, diff_count)
      SELECT gate_id, request_bucket(created_at), method, ingest_shard(), count(*), count(*) FILTER (WHERE has_diff)
      FROM ins
      GROUP BY gate_id, request_bucket(created_at), method
      ORDER BY gate_id, request_bucket(created_at), method
      ON CONFLICT (gate_id, bucket, method, shard) DO UPDATE
        SET request_count = r.request_count + excluded.request_count,
          diff_count = r.diff_count + excluded.diff_count
      RETURNING r.gate_id
    ),
    path_rollup AS (
      -- after every rollup row (the aggregate over rollup reads all of it first)
      INSERT INTO request_path_rollups AS p (gate_id, path, method, shard, request_count, diff_count)
      SELECT g.gate_id, g.path, g.method, ingest_shard(), g.n, g.d
      FROM (SELECT gate_id, path, method, count(*) AS n, count(*) FILTER (WHERE has_diff) AS d
            FROM ins GROUP BY gate_id, path, method) g,
        (SELECT count(*) AS n FROM rollup) done
      WHERE done.n > 0
      ORDER BY g.gate_id, md5(g.path), g.method
      ON CONFLICT (gate_id, md5(path), method, shard) DO UPDATE
        SET request_count = p.request_count + excluded.request_count,
          diff_count = p.diff_count + excluded.diff_count
      RETURNING p.gate_id
    ),
    counter AS (
      -- after every path rollup row, likewise
      INSERT INTO gate_counters AS c (gate_id, shard, request_count, last_active)
      SELECT g.gate_id, ingest_shard(), g.n, g.last_active
      FROM (SELECT gate_id, count(*) AS n, max(created_at) AS last_active FROM ins GROUP BY gate_id) g,
        (SELECT count(*) AS n FROM path_rollup) done
      WHERE done.n > 0
      ORDER BY g.gate_id
      ON CONFLICT (gate_id, shard) DO UPDATE
        SET request_count = c.request_count + excluded.request_count,
          last_active = greatest(c.last_active, excluded.last_active)
    )
    SELECT ${summaryColumns(sql)} FROM ins`
}

/**
 * Timestamps go as text and are cast by the database: a string keeps its
 * microseconds (postgres.js would route a timestamptz parameter through a
 * JS Date), and a malformed one fails there with SQLSTATE 22007.
 */
function timestamp(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : value
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i])
}

export function toDetail(row: DetailRow): RequestDetail {
  const summary = toSummary(row)
  return {
    id: row.id,
    method: row.method,
    path: row.path,
    ...(summary.raw_query === undefined ? {} : { raw_query: summary.raw_query }),
    headers: row.headers,
    body: row.body,
    created_at: summary.created_at,
    live_response: {
      id: row.live_response_id,
      status_code: row.live_status,
      headers: row.live_headers,
      body: row.live_body,
      latency_ms: toNumber(row.live_latency_ms),
      created_at: isoString(row.live_created_at),
    },
    shadow_response: {
      id: row.shadow_response_id,
      status_code: row.shadow_status,
      headers: row.shadow_headers,
      body: row.shadow_body,
      latency_ms: toNumber(row.shadow_latency_ms),
      created_at: isoString(row.shadow_created_at),
    },
    diff: { content: parseJson(row.diff) as PatchOp[] },
    template: row.template,
    signature_id: row.signature_id,
    live_repeat_response:
      row.repeat_response_id === null
        ? null
        : {
            id: row.repeat_response_id,
            status_code: row.repeat_status!,
            headers: row.repeat_headers!,
            body: row.repeat_body!,
            latency_ms: toNumber(row.repeat_latency_ms),
            created_at: isoString(row.repeat_created_at!),
          },
    noise: row.noise === null ? null : { content: parseJson(row.noise) as PatchOp[] },
  }
}
