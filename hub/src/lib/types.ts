/**
 * Resource shapes of the management API (docs/reference/api.md "Resources").
 * The hub only reads what it renders; every field is readonly.
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
  /** Explicit endpoint templates, tried before the automatic ones (docs/insights.md "Explicit templates"). */
  readonly endpoints: readonly string[]
  /** getVerdict's thresholds set on the gate; a threshold not set takes its default (docs/ci.md). */
  readonly verdict?: { readonly max_latency_ratio?: number }
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
  /** Base64 (docs/reference/api.md "Conventions"). */
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

/** What the noise checks say of a field (docs/insights.md "Noise"). */
export const CLASSIFICATIONS = ['noise', 'real', 'unknown'] as const
export type Classification = (typeof CLASSIFICATIONS)[number]

/**
 * GET /gates/{id}/fields: how often one generalised (op, path) differs on
 * an endpoint, and how often it differs between live and its repeat. The
 * noise fields are left out by an API without noise checks.
 */
export interface FieldStats {
  readonly method: string
  readonly template: string
  readonly op: string
  readonly path: string
  readonly count: number
  readonly rate: number
  /** Captures of the endpoint in the window that had a repeat of live. */
  readonly noise_checks?: number
  /** Of those, how many had this field differ between live and its repeat. */
  readonly noise_count?: number
  /** noise_count / noise_checks; null without a noise check. */
  readonly noise_rate?: number | null
  readonly classification?: Classification
}

export const SUGGESTION_REASONS = ['noise', 'volatile'] as const
export type SuggestionReason = (typeof SUGGESTION_REASONS)[number]

/** GET /gates/{id}/suggestions: a proposed `ignored_fields` entry and why. */
export interface Suggestion {
  /** In the gate's field-path notation, ready to paste. */
  readonly field: string
  readonly reason: SuggestionReason
  readonly evidence: SuggestionEvidence
  /** The endpoints whose counts support it; once saved, the entry applies to every endpoint of the gate. */
  readonly endpoints: readonly SuggestionEndpoint[]
}

/** The counts and rates that justify a suggestion, over its endpoints in the window. */
export interface SuggestionEvidence {
  readonly requests: number
  /** Captures whose diff (live against the shadow) holds the field. */
  readonly count: number
  /** count / requests. */
  readonly rate: number
  readonly noise_checks: number
  /** Noise checks whose noise patch (live against its repeat) holds the field. */
  readonly noise_count: number
  /** noise_count / noise_checks; null without a noise check. */
  readonly noise_rate: number | null
  /** `volatile`: the shape most sampled values had (timestamp, uuid, token); null for `noise`. */
  readonly shape: string | null
  /** `volatile`: how many values were sampled. */
  readonly samples: number
}

export interface SuggestionEndpoint {
  readonly method: string
  readonly template: string
}

/** POST /gates/{id}/diff-config/preview: the candidate diff_config and where to try it. */
export interface PreviewRequest {
  readonly diff_config: DiffConfig
  readonly from?: string
  readonly to?: string
  readonly limit?: number
}

/** What a candidate diff_config would change among the most recent stored captures. */
export interface DiffPreview {
  /** Captures re-compared. */
  readonly examined: number
  readonly diffs_before: number
  readonly diffs_after: number
  /** Captures with a diff now and none with the candidate. */
  readonly silenced: number
  /** Captures without a diff now and one with the candidate. */
  readonly surfaced: number
  /** `summary`: the signature's one line; null for one the gate's catalog no longer holds. */
  readonly signatures: readonly { readonly id: string; readonly summary: string | null; readonly count_before: number; readonly count_after: number }[]
  readonly examples: { readonly silenced: readonly string[]; readonly surfaced: readonly string[] }
}

export const JOB_STATES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const
export type JobState = (typeof JOB_STATES)[number]
/** The states a job never leaves. */
export const FINAL_JOB_STATES: readonly JobState[] = ['done', 'failed', 'cancelled']

/** GET /gates/{id}/jobs/{job_id}: a re-diff of stored captures. */
export interface RediffJob {
  readonly id: string
  readonly kind: 'rediff'
  readonly state: JobState
  /** Captures re-diffed so far, of `total`. */
  readonly done: number
  readonly total: number
  readonly started_at: string | null
  readonly finished_at: string | null
  readonly error: string | null
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

/** RFC 7807 body (docs/reference/api.md "Problems"). */
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
  readonly endpoints?: readonly string[]
}
