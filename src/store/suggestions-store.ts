import type postgres from 'postgres'
import { compileCaptureOptions } from '../diff/index.ts'
import {
  fieldSuggestions,
  generalisedPath,
  ignoredBy,
  mayBeVolatile,
  valueShape,
  type FieldRow,
  type Suggestion,
  type ValueShape,
} from '../insights/index.ts'
import { isUuid } from '../net/request-id.ts'
import { fieldCountSteps } from './field-counts.ts'
import type { InsightWindow } from './insight-queries.ts'
import { windowBounds } from './insight-window.ts'
import { toNumber, type GateSettings } from './rows.ts'

/** The fields a suggestion read considers: the busiest in the window. */
export const MAX_SUGGESTION_FIELDS = 5000
/** Endpoints whose values are sampled for the volatile rule, the busiest first. */
export const MAX_SAMPLED_ENDPOINTS = 20
/** Recent captures with a diff sampled per endpoint. */
export const SAMPLES_PER_ENDPOINT = 20

export interface SuggestionsStore {
  /**
   * Proposed ignored_fields entries of a gate over a window
   * (docs/insights.md "Suggestions"), all of them, in order.
   */
  suggestions(gate: Pick<GateSettings, 'id' | 'diff_config' | 'redacted_fields'>, window: InsightWindow): Promise<Suggestion[]>
}

type Sql = postgres.Sql
type Count = string | number

interface Row {
  method: string
  template: string
  op: FieldRow['op']
  path: string
  n: Count
  requests: Count
  noise_checks: Count
  noise_n: Count
}

interface Sample {
  method: string
  template: string
  id: string
  path: string
  value: unknown
}

/**
 * Suggestions from the field counts (the rollups) plus, for the fields
 * that may be volatile, the shapes of the values in the latest captures
 * of their endpoints: at most MAX_SAMPLED_ENDPOINTS × SAMPLES_PER_ENDPOINT
 * diffs read, one statement.
 */
export function createSuggestionsStore(sql: Sql): SuggestionsStore {
  return {
    async suggestions(gate, window) {
      if (!isUuid(gate.id)) return []
      const rows = (
        await sql<Row[]>`
          WITH w AS (${windowBounds(sql, gate.id, window)}),
          ${fieldCountSteps(sql, gate.id, () => sql``)}
          SELECT * FROM fields ORDER BY n DESC, method, template, path, op LIMIT ${MAX_SUGGESTION_FIELDS}`
      ).map(toFieldRow)
      const shapes = await sampleShapes(sql, gate.id, window, rows.filter((row) => mayBeVolatile(row)))
      const config = compileCaptureOptions({ diff: gate.diff_config, redactedFields: gate.redacted_fields }).diff
      return fieldSuggestions({
        rows,
        shapesOf: (row) => shapes.get(key(row.method, row.template, row.path)) ?? [],
        isIgnored: (path) => ignoredBy(config, path),
      })
    },
  }
}

function toFieldRow(row: Row): FieldRow {
  return {
    method: row.method,
    template: row.template,
    op: row.op,
    path: row.path,
    count: toNumber(row.n),
    requests: toNumber(row.requests),
    noiseChecks: toNumber(row.noise_checks),
    noiseCount: toNumber(row.noise_n),
  }
}

const key = (method: string, template: string, path: string) => JSON.stringify([method, template, path])

/**
 * The shapes of the shadow's values of the candidates' replaced fields,
 * one per capture and field, from the latest captures with a diff of each
 * candidate endpoint in the window. Values that cannot have a volatile
 * shape (objects, long texts) come back as NULL: `other`.
 */
async function sampleShapes(sql: Sql, gateId: string, window: InsightWindow, candidates: readonly FieldRow[]) {
  const wanted = new Set(candidates.map((row) => key(row.method, row.template, row.path)))
  const requests = new Map<string, { method: string; template: string; requests: number }>()
  for (const row of candidates) requests.set(JSON.stringify([row.method, row.template]), row)
  const endpoints = [...requests.values()].sort((a, b) => b.requests - a.requests).slice(0, MAX_SAMPLED_ENDPOINTS)
  const shapes = new Map<string, ValueShape[]>()
  if (endpoints.length === 0) return shapes
  const samples = await sql<Sample[]>`
    WITH w AS (${windowBounds(sql, gateId, window)})
    SELECT e.method, e.template, c.id, o->>'path' AS path,
      CASE WHEN jsonb_typeof(o->'value') IN ('string', 'number', 'array') AND length((o->'value')::text) <= 1024
        THEN o->'value' END AS value
    FROM unnest(${endpoints.map((e) => e.method)}::text[], ${endpoints.map((e) => e.template)}::text[]) AS e (method, template)
      CROSS JOIN w
      CROSS JOIN LATERAL (
        SELECT r.id, p.diff FROM requests r JOIN request_payloads p ON p.request_id = r.id
        WHERE r.gate_id = ${gateId} AND left(r.template, 512) = left(e.template, 512) AND r.template = e.template
          AND r.method = e.method AND r.has_diff AND r.created_at >= w.mf AND r.created_at < w.mt
        ORDER BY r.created_at DESC
        LIMIT ${SAMPLES_PER_ENDPOINT}
      ) AS c
      CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(c.diff) = 'array' THEN c.diff ELSE '[]' END) AS o
    WHERE o->>'op' = 'replace'`
  const seen = new Set<string>()
  for (const sample of samples) {
    const field = key(sample.method, sample.template, generalisedPath(sample.path))
    if (!wanted.has(field) || seen.has(`${sample.id} ${field}`)) continue
    seen.add(`${sample.id} ${field}`)
    const list = shapes.get(field) ?? []
    list.push(valueShape(sample.value))
    shapes.set(field, list)
  }
  return shapes
}
