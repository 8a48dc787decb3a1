import type postgres from 'postgres'
import { DEFAULT_DIFF_CONFIG } from '../diff/diff-config.ts'
import { ConflictError } from '../errors/app-error.ts'
import { containsPattern } from './like-pattern.ts'
import { isoString, jsonb, toNumber, type DiffConfig, type Gate, type GateSettings, type Page, type SortOrder } from './rows.ts'
import type { ThresholdOverrides } from '../verdict/verdict-thresholds.ts'
import { toGateStats, withGateStats, type GateStatsColumns } from './stats-store.ts'
import { isUuid } from '../net/request-id.ts'
import { uniqueViolation } from './sql-errors.ts'

/** listGates sort keys (docs/reference/api.md "listGates"), defined once. */
export const GATE_SORT_KEYS = ['id', 'name', 'live_url', 'shadow_url', 'created_at'] as const
export type GateSortKey = (typeof GATE_SORT_KEYS)[number]

export interface GateListQuery {
  limit: number
  offset: number
  /** Case-insensitive literal substring filters (`%` and `_` are not wildcards). */
  name?: string
  live_url?: string
  shadow_url?: string
  sort: GateSortKey
  order: SortOrder
}

export interface GateCreate {
  name: string
  live_url: string
  shadow_url: string
}

/** Omitted fields stay unchanged; `retention` null or '' resets to the global floor. */
export interface GateUpdate {
  name?: string
  diff_config?: DiffConfig
  redacted_fields?: string[]
  retention?: string | null
  /** Explicit endpoint templates, already checked (src/insights/endpoint-templates.ts). */
  endpoints?: string[]
  /** Verdict thresholds, already checked; replaces the stored ones (`{}` clears them). */
  verdict?: ThresholdOverrides
}

export interface GateStore {
  /** A page of gates with their 24 h stats (one query), and how many match. Ties are broken by id. */
  list(query: GateListQuery): Promise<Page<Gate>>
  get(id: string, now?: Date): Promise<Gate | undefined>
  /** What ingest needs, without statistics. */
  settings(id: string): Promise<GateSettings | undefined>
  /** @throws ConflictError when the name or the live/shadow URL pair is taken. */
  create(input: GateCreate): Promise<Gate>
  /** @throws ConflictError when the new name is taken. */
  update(id: string, input: GateUpdate): Promise<Gate | undefined>
  /** Deletes the gate and, by cascade, its requests and rollups. */
  delete(id: string): Promise<boolean>
}

interface GateRow extends GateStatsColumns {
  id: string
  name: string
  live_url: string
  shadow_url: string
  diff_config: DiffConfig
  redacted_fields: string[]
  retention: string
  endpoints: string[]
  verdict: ThresholdOverrides
  created_at: Date
}

const CONSTRAINT_MESSAGES: Record<string, string> = {
  gates_name_key: 'a gate with this name already exists',
  gates_url_pair_key: 'a gate with this live_url and shadow_url already exists',
}

export function createGateStore(sql: postgres.Sql): GateStore {
  const columns = sql`id, name, live_url, shadow_url, diff_config, redacted_fields, retention, endpoints, verdict, created_at`

  function orderBy(alias: string, sort: GateSortKey, order: SortOrder) {
    const column = sql(`${alias}.${sort}`)
    const id = sql(`${alias}.id`)
    return order === 'asc' ? sql`ORDER BY ${column} ASC, ${id} ASC` : sql`ORDER BY ${column} DESC, ${id} DESC`
  }

  async function get(id: string, now?: Date): Promise<Gate | undefined> {
    if (!isUuid(id)) return undefined
    return withStats(sql`SELECT ${columns} FROM gates WHERE id = ${id}`, now)
  }

  async function withStats(source: postgres.PendingQuery<postgres.Row[]>, now?: Date): Promise<Gate | undefined> {
    const [row] = await sql<GateRow[]>`${withGateStats(sql, source, sql``, now)}`
    return row && toGate(row)
  }

  return {
    async list(query) {
      const filters = sql`
        ${query.name === undefined ? sql`` : sql`AND name ILIKE ${containsPattern(query.name)}`}
        ${query.live_url === undefined ? sql`` : sql`AND live_url ILIKE ${containsPattern(query.live_url)}`}
        ${query.shadow_url === undefined ? sql`` : sql`AND shadow_url ILIKE ${containsPattern(query.shadow_url)}`}`
      // One row even when the page is empty, so the total always comes back.
      const source = sql`
        SELECT t.total, f.*
        FROM (SELECT count(*) AS total FROM gates WHERE true ${filters}) t
        LEFT JOIN LATERAL (
          SELECT ${columns} FROM gates g WHERE true ${filters}
          ${orderBy('g', query.sort, query.order)}
          LIMIT ${query.limit} OFFSET ${query.offset}
        ) f ON true`
      const rows = await sql<(GateRow & { total: string })[]>`
        ${withGateStats(sql, source, orderBy('src', query.sort, query.order))}`
      return {
        items: rows.filter((row) => row.id !== null).map(toGate),
        total: toNumber(rows[0]?.total),
      }
    },

    get,

    async settings(id) {
      if (!isUuid(id)) return undefined
      const [row] = await sql<GateSettings[]>`
        SELECT id, diff_config, redacted_fields, retention, endpoints FROM gates WHERE id = ${id}`
      return row
    },

    async create(input) {
      try {
        const [row] = await sql<GateRow[]>`
          INSERT INTO gates (id, name, live_url, shadow_url, diff_config)
          VALUES (${crypto.randomUUID()}, ${input.name}, ${input.live_url}, ${input.shadow_url},
                  ${jsonb(sql, DEFAULT_DIFF_CONFIG)})
          RETURNING ${columns}`
        return toGate({ ...row!, request_count_24h: 0, diff_count_24h: 0, last_active: null })
      } catch (error) {
        throw conflictOr(error)
      }
    },

    async update(id, input) {
      if (!isUuid(id)) return undefined
      const sets = [
        input.name === undefined ? undefined : sql`name = ${input.name}`,
        input.diff_config === undefined ? undefined : sql`diff_config = ${jsonb(sql, input.diff_config)}`,
        input.redacted_fields === undefined
          ? undefined
          : sql`redacted_fields = ${jsonb(sql, input.redacted_fields)}`,
        input.retention === undefined ? undefined : sql`retention = ${(input.retention ?? '').trim()}`,
        input.endpoints === undefined ? undefined : sql`endpoints = ${jsonb(sql, input.endpoints)}`,
        input.verdict === undefined ? undefined : sql`verdict = ${jsonb(sql, input.verdict)}`,
      ].filter((set) => set !== undefined)
      if (sets.length === 0) return get(id)
      const assignments = sets.reduce((all, set) => sql`${all}, ${set}`)
      try {
        return await withStats(sql`UPDATE gates SET ${assignments} WHERE id = ${id} RETURNING ${columns}`)
      } catch (error) {
        throw conflictOr(error)
      }
    },

    async delete(id) {
      if (!isUuid(id)) return false
      const result = await sql`DELETE FROM gates WHERE id = ${id}`
      return result.count > 0
    },
  }
}

function conflictOr(error: unknown): unknown {
  const constraint = uniqueViolation(error)
  return constraint === undefined ? error : new ConflictError(CONSTRAINT_MESSAGES[constraint] ?? 'the gate conflicts with an existing one')
}

function toGate(row: GateRow): Gate {
  return {
    id: row.id,
    name: row.name,
    live_url: row.live_url,
    shadow_url: row.shadow_url,
    diff_config: row.diff_config,
    redacted_fields: row.redacted_fields,
    retention: row.retention,
    endpoints: row.endpoints,
    verdict: row.verdict,
    created_at: isoString(row.created_at),
    stats: toGateStats(row),
  }
}
