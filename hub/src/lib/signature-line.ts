import type { ErrorClass } from '../../../src/insights/error-class.ts'
// The one file of src/insights/ without a run-time import (docs/insights.md "For developers"):
// the hub words a signature exactly as the logs do.
import { signatureSummary } from '../../../src/insights/signature-summary.ts'
import type { SignatureStats } from './types.ts'

/** What signatureLine reads: a signature as the API lists it, counts aside. */
export type SignatureShape = Pick<SignatureStats, 'kind' | 'method' | 'template' | 'ops'> &
  Partial<Pick<SignatureStats, 'overflow' | 'truncated' | 'live_error' | 'shadow_error'>>

/**
 * The one-line summary of a signature (docs/insights.md "Summaries"):
 * `GET /v2/products/{id}: changed /body/price/tax, only shadow /body/stock/reserved`.
 */
export function signatureLine(s: SignatureShape): string {
  return signatureSummary({
    kind: s.kind,
    method: s.method,
    template: s.template,
    ops: s.ops,
    overflow: s.overflow === true,
    truncated: s.truncated === true,
    // An error class this hub does not know reads as a plain failure (signatureSummary).
    liveError: (s.live_error ?? null) as ErrorClass | null,
    shadowError: (s.shadow_error ?? null) as ErrorClass | null,
  })
}

/** How an RFC 6902 op reads in the hub (as in the request page's diff list). */
export const OP_MARKS: Readonly<Record<string, { readonly label: string; readonly cls: string }>> = {
  replace: { label: 'changed', cls: 'mark-changed' },
  add: { label: 'only shadow', cls: 'mark-added' },
  remove: { label: 'only live', cls: 'mark-removed' },
}

/** The mark of an op; an op the hub does not know reads as itself. */
export function opMark(op: string): { readonly label: string; readonly cls: string } {
  return OP_MARKS[op] ?? { label: op, cls: 'diff-no' }
}
