/**
 * Resource shapes of the management API (SPEC.md "Resources and their
 * fields"). The hub only reads what it renders; every field is readonly.
 */

export interface DiffConfig {
  readonly ignored_fields: readonly string[]
  readonly included_fields: readonly string[]
  readonly float_tolerance: number
  readonly sort_arrays: boolean
}

export interface GateStats {
  readonly request_count_24h: number
  readonly diff_count_24h: number
  readonly diff_rate: number
  readonly last_active: string | null
}

export interface Gate {
  readonly id: string
  readonly name: string
  readonly live_url: string
  readonly shadow_url: string
  readonly diff_config: DiffConfig
  readonly redacted_fields: readonly string[]
  readonly retention: string
  readonly created_at: string
  readonly stats: GateStats
}

export interface ResponseSummary {
  readonly status_code: number
  readonly latency_ms: number
}

export interface RequestSummary {
  readonly id: string
  readonly method: string
  readonly path: string
  readonly raw_query?: string
  readonly created_at: string
  readonly live_response: ResponseSummary
  readonly shadow_response: ResponseSummary
  readonly has_diff: boolean
  /** The route template of the path (docs/insights.md "Endpoints"); null for a capture the API has not yet given one (stored before templates, not yet backfilled). */
  readonly template: string | null
  /** The capture's diff signature; null when the responses matched. */
  readonly signature_id: string | null
}

/** Header name to its values, as captured. */
export type HeaderMap = Readonly<Record<string, readonly string[]>>

export interface ResponsePayload {
  readonly id?: string
  readonly status_code: number
  readonly headers: HeaderMap
  /** Base64 (DESIGN.md "API behaviour the spec leaves open"). */
  readonly body: string
  readonly latency_ms: number
  readonly created_at: string
}

export const PATCH_OPS = ['add', 'remove', 'replace'] as const
export type PatchOpKind = (typeof PATCH_OPS)[number]

/** One RFC 6902 operation; `value` is the shadow-side value. */
export interface PatchOp {
  readonly op: PatchOpKind
  readonly path: string
  readonly value?: unknown
}

export interface DiffPayload {
  readonly content: readonly PatchOp[]
}

export interface RequestDetail {
  readonly id: string
  readonly method: string
  readonly path: string
  readonly raw_query?: string
  readonly headers: HeaderMap
  /** Base64. */
  readonly body: string
  readonly created_at: string
  readonly live_response: ResponsePayload
  readonly shadow_response: ResponsePayload
  readonly diff: DiffPayload
  readonly template: string | null
  readonly signature_id: string | null
}

/** Approximate latency percentiles of an endpoint in a window; null without captures. */
export interface LatencyPercentiles {
  readonly p50: number | null
  readonly p95: number | null
}

/** GET /gates/{id}/endpoints: one endpoint (method and route template) in a window. */
export interface EndpointStats {
  readonly method: string
  readonly template: string
  readonly requests: number
  readonly diffs: number
  readonly errors: number
  readonly diff_rate: number
  readonly live_latency_ms: LatencyPercentiles
  readonly shadow_latency_ms: LatencyPercentiles
}

export const SIGNATURE_KINDS = ['diff', 'error'] as const
export type SignatureKind = (typeof SIGNATURE_KINDS)[number]

/**
 * GET /gates/{id}/signatures: one kind of difference in a window. The
 * fields after `example_request_id` say how to word it (docs/insights.md
 * "Summaries"); an API that leaves them out gets a plainer summary.
 */
export interface SignatureStats {
  readonly id: string
  readonly kind: SignatureKind
  readonly method: string
  readonly template: string
  readonly ops: readonly { readonly op: string; readonly path: string }[]
  readonly count: number
  readonly share: number
  readonly first_seen: string
  readonly last_seen: string
  readonly example_request_id: string | null
  readonly overflow?: boolean
  readonly truncated?: boolean
  readonly live_error?: string | null
  readonly shadow_error?: string | null
}

/** GET /gates/{id}/fields: how often one generalised (op, path) differs on an endpoint. */
export interface FieldStats {
  readonly method: string
  readonly template: string
  readonly op: string
  readonly path: string
  readonly count: number
  readonly rate: number
}

export interface ServerConfig {
  readonly retention: string
}

export interface GlobalStats {
  readonly total_gates: number
  readonly total_requests_24h: number
  readonly total_diff_rate: number
}

export interface PaginationMeta {
  readonly limit: number
  readonly offset: number
  readonly total: number
  readonly has_more: boolean
}

/** RFC 7807 body (SPEC.md "Errors"). */
export interface Problem {
  readonly type: string
  readonly title: string
  readonly status: number
  readonly detail?: string
  readonly instance?: string
}

export interface Page<T> {
  readonly items: readonly T[]
  readonly pagination: PaginationMeta
}

export interface GateCreate {
  readonly name: string
  readonly live_url: string
  readonly shadow_url: string
}

/** PATCH /gates/{id}: omitted fields stay unchanged; `retention: null` resets. */
export interface GateUpdate {
  readonly name?: string
  readonly diff_config?: DiffConfig
  readonly redacted_fields?: readonly string[]
  readonly retention?: string | null
}
