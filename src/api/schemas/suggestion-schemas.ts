import { type } from 'arktype'
import { SUGGESTION_REASONS, VALUE_SHAPES } from '../../insights/index.ts'
import { paginationMeta } from './common.ts'
import { dateTimeQuery, integerQuery } from './fields.ts'

/** listSuggestions (docs/insights.md "Suggestions"): its query string and answer. */
export const listSuggestionsQuery = type({
  limit: integerQuery(1, 100).default('50'),
  offset: integerQuery(0, Infinity).default('0'),
  'from?': dateTimeQuery,
  'to?': dateTimeQuery,
  '+': 'reject',
})

const volatileShape = type.enumerated(...VALUE_SHAPES.filter((shape) => shape !== 'other'))

export const suggestion = type({
  field: 'string',
  reason: type.enumerated(...SUGGESTION_REASONS),
  evidence: {
    requests: 'number.integer',
    count: 'number.integer',
    rate: 'number',
    noise_checks: 'number.integer',
    noise_count: 'number.integer',
    noise_rate: 'number | null',
    shape: volatileShape.or('null'),
    samples: 'number.integer',
  },
  endpoints: type({ method: 'string', template: 'string' }).array(),
})

export const suggestionListEnvelope = type({ data: suggestion.array(), pagination: paginationMeta })
