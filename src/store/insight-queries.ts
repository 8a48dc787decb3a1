/**
 * The insight reads' contracts (docs/reference/api.md "Insights"): sort keys
 * and filters defined once, for the store, the API's validation and the OpenAPI
 * description, and the shapes returned.
 */
import type { ErrorClass, SignatureKind, SignatureOp } from '../insights/index.ts'
import type { FieldClassification } from '../insights/noise-classification.ts'
import type { SortOrder } from './rows.ts'

export const ENDPOINT_SORT_KEYS = ['diff_rate', 'requests', 'diffs', 'errors', 'template'] as const
export type EndpointSortKey = (typeof ENDPOINT_SORT_KEYS)[number]

export const SIGNATURE_SORT_KEYS = ['count', 'last_seen', 'first_seen'] as const
export type SignatureSortKey = (typeof SIGNATURE_SORT_KEYS)[number]

export const FIELD_SORT_KEYS = ['count', 'rate', 'path'] as const
export type FieldSortKey = (typeof FIELD_SORT_KEYS)[number]

/**
 * A time window: the minutes from the one holding `from` to the one
 * holding `to`, both included. Without `from`, the 24 hours before `to`;
 * without `to`, no end (captures dated ahead of the clock count, as in
 * the 24 h stats). Neither: the last 24 hours.
 */
export interface InsightWindow {
  from?: Date
  to?: Date
}

interface PageQuery<S> extends InsightWindow {
  limit: number
  offset: number
  sort: S
  order: SortOrder
}

/** Filters of the signature and field reads; they combine with AND. */
export interface EndpointFilter {
  /** Any of these methods, compared exactly (the API upper-cases them). */
  method?: string[]
  /** One template, compared exactly. */
  template?: string
}

export type EndpointQuery = PageQuery<EndpointSortKey>
export interface SignatureQuery extends PageQuery<SignatureSortKey>, EndpointFilter {
  kind?: SignatureKind
}
export interface FieldQuery extends PageQuery<FieldSortKey>, EndpointFilter {}

/** Approximate percentiles of a side's latencies (docs/storage.md "Insight rollups" gives the error bound). */
export interface LatencyPercentiles {
  p50: number | null
  p95: number | null
}

export interface EndpointStats {
  method: string
  template: string
  requests: number
  /** Captures whose comparison found a difference (signature kind `diff`). */
  diffs: number
  /** Captures whose live or shadow side failed (signature kind `error`). */
  errors: number
  /** diffs / requests. */
  diff_rate: number
  live_latency_ms: LatencyPercentiles
  shadow_latency_ms: LatencyPercentiles
}

export interface SignatureStats {
  id: string
  kind: SignatureKind
  method: string
  template: string
  /** The generalised operations of a `diff` signature; empty for the others. */
  ops: SignatureOp[]
  /** More operations than a signature keeps (MAX_SIGNATURE_OPS) were left out. */
  truncated: boolean
  /** The class of each failed side of an `error` signature; null for a side that answered. */
  live_error: ErrorClass | null
  shadow_error: ErrorClass | null
  /** The `(other)` signature of its endpoint and kind: the gate had reached its signature cap. */
  overflow: boolean
  count: number
  /** count / the captures with a signature in the window matching the same filters. */
  share: number
  first_seen: string
  last_seen: string
  /** The latest capture of the signature in the window. */
  example_request_id: string
}

export interface FieldStats {
  method: string
  template: string
  op: SignatureOp['op']
  path: string
  /** Captures of the endpoint whose patch has this (op, path), generalised. */
  count: number
  /** count / the endpoint's requests in the window. */
  rate: number
  /** The endpoint's captures in the window whose noise check compared two answers of live. */
  noise_checks: number
  /** Those whose noise patch holds this (op, path). */
  noise_count: number
  /** noise_count / noise_checks; null without noise checks. */
  noise_rate: number | null
  /** Noise, a real difference, or not enough noise checks to say (docs/insights.md "Noise"). */
  classification: FieldClassification
}
