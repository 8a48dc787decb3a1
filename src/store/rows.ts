/**
 * What the stores return: plain objects in the JSON shapes of
 * docs/reference/api.md "Resources" (snake_case, timestamps as ISO-8601 strings
 * in UTC with milliseconds), except that bodies are bytes, which the API
 * base64-encodes.
 */
import type postgres from 'postgres'
import type { DiffConfig } from '../diff/diff-config.ts'
import type { PatchOp } from '../diff/patch-op.ts'
import { parseJson } from '../diff/large-integer.ts'
import type { ThresholdOverrides } from '../verdict/verdict-thresholds.ts'
import type { NoiseCheckResult } from '../metrics/label-values.ts'

export type { DiffConfig } from '../diff/diff-config.ts'
export type { PatchOp } from '../diff/patch-op.ts'

/** Header name to its values, as captured. */
export type HeaderMap = Record<string, string[]>

/**
 * GateStats (docs/reference/api.md "Gate"): over the stored requests created in
 * the last 24 h.
 */
export interface GateStats {
  request_count_24h: number
  diff_count_24h: number
  /** diff_count_24h / request_count_24h, 0 when there is no request. */
  diff_rate: number
  /** created_at of the most recent capture ever received; null when none. */
  last_active: string | null
}

/** docs/reference/api.md "Gate". */
export interface Gate {
  id: string
  name: string
  live_url: string
  shadow_url: string
  diff_config: DiffConfig
  redacted_fields: string[]
  /** Go duration as the user gave it; '' = the global retention floor. */
  retention: string
  /** Explicit endpoint templates, in order: the first that matches a path names its endpoint. */
  endpoints: string[]
  /** Verdict thresholds set on the gate (docs/ci.md "Thresholds"); `{}` when none. */
  verdict: ThresholdOverrides
  created_at: string
  stats: GateStats
}

/** What ingest needs from a gate (no statistics, one index lookup). */
export interface GateSettings {
  id: string
  diff_config: DiffConfig
  redacted_fields: string[]
  retention: string
  /** Explicit endpoint templates (docs/insights.md "Explicit templates"). */
  endpoints: string[]
}

/** A Response in a capture summary (docs/reference/api.md "Capture (request)"). */
export interface ResponseSummary {
  status_code: number
  latency_ms: number
}

/**
 * A capture summary (docs/reference/api.md "Capture (request)"). `raw_query` is
 * omitted when empty.
 */
export interface RequestSummary {
  id: string
  method: string
  path: string
  raw_query?: string
  created_at: string
  live_response: ResponseSummary
  shadow_response: ResponseSummary
  has_diff: boolean
  /** The capture's endpoint template (docs/insights.md); null only for a capture stored before insights and not yet backfilled. */
  template: string | null
  /** The id of its diff signature; null without a diff. */
  signature_id: string | null
}

/** A Response in a capture detail, with the body as bytes. */
export interface StoredResponse {
  id: string
  status_code: number
  headers: HeaderMap
  body: Uint8Array
  latency_ms: number
  created_at: string
}

/** A capture detail, with bodies as bytes. `raw_query` is omitted when empty. */
export interface RequestDetail {
  id: string
  method: string
  path: string
  raw_query?: string
  headers: HeaderMap
  body: Uint8Array
  created_at: string
  live_response: StoredResponse
  shadow_response: StoredResponse
  diff: { content: PatchOp[] }
  /** As in RequestSummary. */
  template: string | null
  signature_id: string | null
  /** Live's second answer to the same request (docs/insights.md "Noise"); null when no noise check was made. */
  live_repeat_response: StoredResponse | null
  /**
   * What differed between live's two answers: empty when they matched;
   * null when no noise check was made, or a side of it failed.
   */
  noise: { content: PatchOp[] } | null
}

/** A response as ingest hands it to the store. */
export interface ResponseInput {
  id: string
  status_code: number
  headers: HeaderMap
  body: Uint8Array
  latency_ms: number
  /** A Date, or an RFC 3339 string (kept to the microsecond by the database). */
  created_at: Date | string
}

/** A capture as ingest hands it to the store: redacted, diffed, ready to keep. */
export interface CaptureInput {
  id: string
  method: string
  path: string
  /** '' when there is none. */
  raw_query: string
  headers: HeaderMap
  body: Uint8Array
  /** A Date, or an RFC 3339 string (kept to the microsecond by the database). */
  created_at: Date | string
  live_response: ResponseInput
  shadow_response: ResponseInput
  has_diff: boolean
  /** The diff's operations; empty when there is none. */
  diff: PatchOp[]
  /**
   * The route template of `path` by the gate's explicit templates
   * (docs/insights.md); the store applies the automatic rule when absent.
   */
  template?: string
  /** The noise check, when one was made (docs/insights.md "Noise"). */
  noise_check?: NoiseCheckInput
}

/** The outcomes of a noise check, as stored (requests.noise_result) and counted (svc_noise_checks_total). */
export type NoiseResult = NoiseCheckResult

/** Live's second answer, redacted, and its comparison with live's first. */
export interface NoiseCheckInput {
  repeat: ResponseInput
  result: NoiseResult
  /** The noise patch; empty unless `result` is `noisy`. */
  ops: PatchOp[]
}

/** A page of a list, and how many items match in all. */
export interface Page<T> {
  items: T[]
  total: number
}

/** Sort directions of the list endpoints, defined once. */
export const SORT_ORDERS = ['asc', 'desc'] as const
export type SortOrder = (typeof SORT_ORDERS)[number]

/** postgres.js gives timestamptz as Date; the API speaks ISO-8601 strings. */
export function isoString(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString()
}

/** int8 and numeric arrive as strings from postgres.js; counts fit a double exactly. */
export function toNumber(value: string | number | bigint | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value)
}

/**
 * What jsonb cannot hold, as JSON.stringify writes it: `\u0000`, and a lone
 * UTF-16 surrogate, which JSON.stringify escapes (a paired one it writes
 * as the character itself). Matched after an even run of backslashes (an
 * odd one escapes the `\`, and the rest is literal text).
 */
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g
const MAYBE_UNSTORABLE = /\\u(?:0000|d[89a-f])/

/**
 * A jsonb parameter. postgres.js serialises it with JSON.stringify itself
 * (a pre-stringified value would be stored as a JSON string).
 */
export function jsonb(sql: postgres.Sql, value: unknown): postgres.Parameter {
  return sql.json(value as postgres.JSONValue)
}

/**
 * `value` as jsonb can hold it (RFC 8259 §8.2 allows what jsonb refuses):
 * jsonb has no U+0000 ("unsupported Unicode escape sequence") and no lone
 * surrogate ("invalid input syntax for type json"), so a body with either
 * in a string, which puts it in the diff, failed the whole capture with a
 * 500. Such a character, in a key or a string anywhere, becomes U+FFFD,
 * the replacement character, as it does in a text column (two keys that
 * differ only there become one, the later value kept). For what comes
 * from a client or an upstream: headers and diffs. Bodies are bytea and
 * stay byte-exact.
 */
export function storableJson<T>(value: T): T {
  const text = JSON.stringify(value)
  if (!MAYBE_UNSTORABLE.test(text)) return value
  // parseJson keeps a large integer of a diff as its digits (large-integer.ts).
  return parseJson(replaceUnstorable(text)) as T
}

/**
 * storableJson's value as JSON text, for a `::text::jsonb` parameter: one
 * JSON.stringify instead of one here and another in postgres.js
 * (sql.json), per header map and patch of every capture. The parameter
 * must be typed text: as jsonb, postgres.js would encode the text as a
 * JSON string.
 */
export function storableJsonText(value: unknown): string {
  const text = JSON.stringify(value)
  return MAYBE_UNSTORABLE.test(text) ? replaceUnstorable(text) : text
}

function replaceUnstorable(text: string): string {
  UNSTORABLE_ESCAPE.lastIndex = 0
  return text.replace(UNSTORABLE_ESCAPE, '$1\\ufffd')
}
