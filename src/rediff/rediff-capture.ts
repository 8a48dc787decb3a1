import { compareResponses, type CapturedResponse, type Comparison, type CompiledCaptureOptions, type PatchOp } from '../diff/index.ts'
import type { ScannedCapture } from '../store/capture-scan.ts'
import type { NoiseResult } from '../store/rows.ts'

/** A stored capture compared again: live against the shadow, and live against its repeat when it has one. */
export interface Rediffed {
  readonly comparison: Comparison
  /** The noise check again; undefined for a capture without a repeat. */
  readonly noise: { readonly result: NoiseResult; readonly ops: PatchOp[] } | undefined
}

/**
 * The comparisons of a stored capture under `options` (a candidate or the
 * gate's current diff_config), as ingest makes them (docs/insights.md
 * "Preview and re-diff"): on the responses as stored, redacted; redacted
 * fields are left out of the comparison either way, so only a body that
 * redaction replaced whole (`[REDACTED]`) can compare otherwise than it
 * did at ingest. A failed side (status 0) is an error whatever the
 * options. `withNoise` false leaves the noise check out (a preview). Pure.
 */
export function rediffCapture(capture: ScannedCapture, options: CompiledCaptureOptions, withNoise = true): Rediffed {
  const live: CapturedResponse = { status: capture.live_status, headers: capture.live_headers, body: capture.live_body }
  const shadow: CapturedResponse = { status: capture.shadow_status, headers: capture.shadow_headers, body: capture.shadow_body }
  const comparison = compareResponses(live, shadow, options)
  if (!withNoise || capture.repeat_status === null) return { comparison, noise: undefined }
  const repeat: CapturedResponse = { status: capture.repeat_status, headers: capture.repeat_headers ?? {}, body: capture.repeat_body ?? new Uint8Array() }
  const check = compareResponses(live, repeat, options)
  const noise =
    check.kind === 'match'
      ? { result: 'quiet' as const, ops: [] }
      : check.kind === 'diff'
        ? { result: 'noisy' as const, ops: check.ops }
        : { result: 'error' as const, ops: [] }
  return { comparison, noise }
}

/** What a stored capture's comparison was: `error` when a side failed, else whether it had a diff. */
export function storedKind(capture: Pick<ScannedCapture, 'live_status' | 'shadow_status' | 'has_diff'>): Comparison['kind'] {
  if (capture.live_status === 0 || capture.shadow_status === 0) return 'error'
  return capture.has_diff ? 'diff' : 'match'
}
