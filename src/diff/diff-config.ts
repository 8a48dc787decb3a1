/**
 * The per-gate knobs that keep a comparison quiet (docs/reference/api.md "Gate", DiffConfig).
 * All four fields are required once supplied; DEFAULT_DIFF_CONFIG is what a
 * new gate gets.
 */
export interface DiffConfig {
  /**
   * Field paths excluded from comparison, in the dotted notation of
   * docs/diff.md "ignored_fields, included_fields, redacted fields"
   * (`body.**.updated_at`, `headers.X-Trace`).
   * @default []
   */
  ignored_fields: string[]
  /**
   * When non-empty, only these paths (and their descendants) are compared;
   * `ignored_fields` are then removed from what is left.
   * @default []
   */
  included_fields: string[]
  /**
   * Absolute tolerance: two numbers differ only when `|a - b| > tolerance`.
   * @default 0
   */
  float_tolerance: number
  /**
   * Sort every array on both sides into a canonical order first, so element
   * order never produces a diff.
   * @default false
   */
  sort_arrays: boolean
}

/** What a new gate gets: nothing ignored, everything included, exact numbers, arrays in order. */
export const DEFAULT_DIFF_CONFIG: DiffConfig = Object.freeze({
  // Frozen at runtime; typed as plain arrays so the shape matches the API's
  // DiffConfig schema.
  ignored_fields: Object.freeze([]) as unknown as string[],
  included_fields: Object.freeze([]) as unknown as string[],
  float_tolerance: 0,
  sort_arrays: false,
})
