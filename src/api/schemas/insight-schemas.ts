import { type } from 'arktype'
import { ERROR_CLASSES, FIELD_CLASSIFICATIONS, SIGNATURE_ID_LENGTH, SIGNATURE_KINDS } from '../../insights/index.ts'
import { ENDPOINT_SORT_KEYS, FIELD_SORT_KEYS, SIGNATURE_SORT_KEYS } from '../../store/insight-queries.ts'
import { paginationMeta } from './common.ts'
import { dateTimeQuery, integerQuery, sortOrder, storableText } from './fields.ts'

/**
 * The insight reads (docs/reference/api.md "Insights"): their query strings and
 * answers.
 */

const PATCH_OPS = ['add', 'remove', 'replace'] as const

/** A signature id as signatureId() writes it: 16 lower-case hex characters. */
export const signatureIdQuery = type('string').narrow((text, ctx) =>
  new RegExp(`^[0-9a-f]{${SIGNATURE_ID_LENGTH}}$`).test(text)
    ? true
    : ctx.mustBe(`a signature id (${SIGNATURE_ID_LENGTH} lower-case hex characters)`),
)

const pageAndWindow = {
  limit: integerQuery(1, 100).default('50'),
  offset: integerQuery(0, Infinity).default('0'),
  'from?': dateTimeQuery,
  'to?': dateTimeQuery,
  order: sortOrder.default('desc'),
} as const

const endpointFilter = {
  // A comma-separated list, or the parameter repeated (query-string.ts).
  'method?': 'string | string[]',
  'template?': storableText,
} as const

export const listEndpointsQuery = type({
  ...pageAndWindow,
  sort: type.enumerated(...ENDPOINT_SORT_KEYS).default('diff_rate'),
  '+': 'reject',
})

export const listSignaturesQuery = type({
  ...pageAndWindow,
  ...endpointFilter,
  'kind?': type.enumerated(...SIGNATURE_KINDS),
  sort: type.enumerated(...SIGNATURE_SORT_KEYS).default('count'),
  '+': 'reject',
})

export const listFieldsQuery = type({
  ...pageAndWindow,
  ...endpointFilter,
  sort: type.enumerated(...FIELD_SORT_KEYS).default('count'),
  '+': 'reject',
})

const latencyPercentiles = type({ p50: 'number | null', p95: 'number | null' })

export const endpointStats = type({
  method: 'string',
  template: 'string',
  requests: 'number.integer',
  diffs: 'number.integer',
  errors: 'number.integer',
  diff_rate: 'number',
  live_latency_ms: latencyPercentiles,
  shadow_latency_ms: latencyPercentiles,
})

const signatureOp = type({ op: type.enumerated(...PATCH_OPS), path: 'string' })
const errorClass = type.enumerated(...ERROR_CLASSES).or('null')

export const signatureStats = type({
  id: 'string',
  kind: type.enumerated(...SIGNATURE_KINDS),
  method: 'string',
  template: 'string',
  ops: signatureOp.array(),
  truncated: 'boolean',
  live_error: errorClass,
  shadow_error: errorClass,
  overflow: 'boolean',
  count: 'number.integer',
  share: 'number',
  first_seen: 'string',
  last_seen: 'string',
  example_request_id: 'string.uuid',
})

export const fieldStats = type({
  method: 'string',
  template: 'string',
  op: type.enumerated(...PATCH_OPS),
  path: 'string',
  count: 'number.integer',
  rate: 'number',
  noise_checks: 'number.integer',
  noise_count: 'number.integer',
  noise_rate: 'number | null',
  classification: type.enumerated(...FIELD_CLASSIFICATIONS),
})

export const endpointListEnvelope = type({ data: endpointStats.array(), pagination: paginationMeta })
export const signatureListEnvelope = type({ data: signatureStats.array(), pagination: paginationMeta })
export const fieldListEnvelope = type({ data: fieldStats.array(), pagination: paginationMeta })
