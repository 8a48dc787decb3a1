import type { DecodedBody } from './body.ts'
import type { RequestDetail } from './types.ts'

export type Side = 'live' | 'shadow'

/**
 * How a capture's two responses compared, after the diff engine's outcome kinds
 * (docs/diff.md "What is compared"). A side that failed (timeout, refused
 * connection) is stored with status 0 and its error text as the body; the
 * capture then counts as `has_diff` with an empty patch, so an empty patch
 * alone does not mean the responses matched.
 */
export type Outcome =
  | { readonly kind: 'match' }
  | { readonly kind: 'diff'; readonly ops: number }
  | { readonly kind: 'error'; readonly failed: readonly Side[] }

export function comparisonOutcome(detail: Pick<RequestDetail, 'live_response' | 'shadow_response' | 'diff'>): Outcome {
  const ops = detail.diff.content.length
  if (ops > 0) return { kind: 'diff', ops }
  const failed = (['live', 'shadow'] as const).filter((s) => detail[`${s}_response`].status_code === 0)
  return failed.length > 0 ? { kind: 'error', failed } : { kind: 'match' }
}

/** Error text longer than this is cut in the summary (the body panel has it all). */
const ERROR_CUT = 300

/** The error a failed side recorded as its body, for one line of prose. */
export function failureText(body: DecodedBody): string {
  switch (body.kind) {
    case 'text':
    case 'json': {
      const text = body.text.trim()
      if (text === '') return 'no response'
      return text.length > ERROR_CUT ? `${text.slice(0, ERROR_CUT)}…` : text
    }
    case 'empty':
    case 'binary':
    case 'invalid':
      return 'no response'
  }
}
