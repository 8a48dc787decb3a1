import type { PatchOp } from './patch-op.ts'

/**
 * The verdict on one capture (an outcome as a value, not an exception):
 * - `match`: nothing compared differs;
 * - `diff`: the non-empty patch from live to shadow;
 * - `error`: one side failed (status 0: timeout, refused, reset) or could not
 *   be compared; `has_diff` is true for it (docs/reference/api.md "Capture (request)").
 */
export type Comparison =
  { kind: 'match' } | { kind: 'diff'; ops: PatchOp[] } | { kind: 'error'; cause: string }

export const COMPARISON_KINDS = [
  'match',
  'diff',
  'error',
] as const satisfies readonly Comparison['kind'][]

const MATCH: Comparison = Object.freeze({ kind: 'match' })

/** `match` for an empty patch, `diff` otherwise. */
export function comparisonOf(ops: PatchOp[]): Comparison {
  return ops.length === 0 ? MATCH : { kind: 'diff', ops }
}

/**
 * Whether a comparison counts as a diff (`has_diff` in docs/reference/api.md
 * "Capture (request)").
 */
export function hasDiff(comparison: Comparison): boolean {
  return comparison.kind !== 'match'
}
