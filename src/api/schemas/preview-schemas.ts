import { type } from 'arktype'
import { diffConfigBody } from './gate-schemas.ts'
import { dateTimeString } from './fields.ts'

/** previewDiffConfig (docs/insights.md "Preview"): its body and answer. */

/** Captures a preview re-diffs at most, and by default. */
export const MAX_PREVIEW_LIMIT = 10_000
export const DEFAULT_PREVIEW_LIMIT = 1_000

const previewLimit = type('number.integer').narrow((n, ctx) =>
  n >= 1 && n <= MAX_PREVIEW_LIMIT ? true : ctx.mustBe(`an integer from 1 to ${MAX_PREVIEW_LIMIT.toLocaleString('en')}`),
)

export const previewDiffConfigBody = type({
  diff_config: diffConfigBody,
  'from?': dateTimeString,
  'to?': dateTimeString,
  'limit?': previewLimit,
  '+': 'reject',
})

export const diffConfigPreview = type({
  examined: 'number.integer',
  diffs_before: 'number.integer',
  diffs_after: 'number.integer',
  silenced: 'number.integer',
  surfaced: 'number.integer',
  signatures: type({ id: 'string', summary: 'string | null', count_before: 'number.integer', count_after: 'number.integer' }).array(),
  examples: { silenced: 'string.uuid[]', surfaced: 'string.uuid[]' },
})

export const diffConfigPreviewEnvelope = type({ data: diffConfigPreview })
