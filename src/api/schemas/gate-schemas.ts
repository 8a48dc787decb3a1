import { type } from 'arktype'
import { fieldPathProblem } from '../../diff/index.ts'
import { endpointTemplatesProblem, MAX_ENDPOINT_TEMPLATES } from '../../insights/index.ts'
import { durationString, httpUrl, integerQuery, sortOrder, storableText, unstorableTextProblem } from './fields.ts'
import { paginationMeta } from './common.ts'
import { storedVerdictSettings, verdictSettings } from './verdict-schemas.ts'

/** DiffConfig as stored and returned (docs/reference/api.md "Gate"). */
export const diffConfig = type({
  ignored_fields: 'string[]',
  included_fields: 'string[]',
  float_tolerance: 'number >= 0',
  sort_arrays: 'boolean',
  '+': 'reject',
})

/**
 * Field paths in the notation of docs/diff.md "ignored_fields, included_fields,
 * redacted fields", checked when written: a path that cannot be compiled would
 * fail every capture of the gate later.
 */
const fieldPaths = type('string[]').narrow((paths, ctx) => {
  for (const path of paths) {
    const problem = unstorableTextProblem(path) ?? fieldPathProblem(path)
    if (problem !== undefined) return ctx.mustBe(`field paths such as body.items.#.price (${problem})`)
  }
  return true
})

/**
 * A float tolerance as JSON can carry it back: `1e400` parses as Infinity,
 * which JSON.stringify writes as null, so the stored gate failed every
 * later read of it with a 500.
 */
const floatTolerance = type('number').narrow((n, ctx) => (Number.isFinite(n) && n >= 0 ? true : ctx.mustBe('a finite number of at least 0')))

/**
 * Explicit endpoint templates (docs/insights.md "Explicit templates"),
 * checked when written: the problem names the template that is wrong.
 */
const endpointTemplates = type('string[]').narrow((templates, ctx) => {
  const unstorable = templates.map(unstorableTextProblem).find((problem) => problem !== undefined)
  if (unstorable !== undefined) return ctx.mustBe(`templates ${unstorable}`)
  const problem = endpointTemplatesProblem(templates)
  return problem === undefined
    ? true
    : // What is wrong first: the rule after it, so that a template that does not parse is not read as too many.
      ctx.mustBe(`valid: ${problem} (at most ${MAX_ENDPOINT_TEMPLATES} distinct templates such as /v2/products/{sku}/price or /static/*)`)
})

/** updateGate's diff_config: all four fields required. */
export const diffConfigBody = type({
  ignored_fields: fieldPaths,
  included_fields: fieldPaths,
  float_tolerance: floatTolerance,
  sort_arrays: 'boolean',
  '+': 'reject',
})

export const gateStats = type({
  request_count_24h: 'number.integer',
  diff_count_24h: 'number.integer',
  diff_rate: 'number',
  last_active: 'string | null',
})

export const gate = type({
  id: 'string.uuid',
  name: 'string',
  live_url: 'string',
  shadow_url: 'string',
  diff_config: diffConfig,
  redacted_fields: 'string[]',
  retention: 'string',
  endpoints: 'string[]',
  verdict: storedVerdictSettings,
  created_at: 'string',
  stats: gateStats,
})

const gateName = type('string').narrow((text, ctx) =>
  text.trim() !== '' && text.length <= 200 && unstorableTextProblem(text) === undefined
    ? true
    : ctx.mustBe('a non-empty name of at most 200 UTF-16 code units, without NUL characters or lone surrogates'),
)

export const createGateBody = type({
  name: gateName,
  live_url: httpUrl,
  shadow_url: httpUrl,
  '+': 'reject',
})

export const updateGateBody = type({
  'name?': gateName,
  'diff_config?': diffConfigBody,
  'redacted_fields?': fieldPaths,
  'retention?': durationString.or('null').or("''"),
  'endpoints?': endpointTemplates,
  'verdict?': verdictSettings,
  '+': 'reject',
})

export const GATE_SORT_KEYS = ['id', 'name', 'live_url', 'shadow_url', 'created_at'] as const

export const listGatesQuery = type({
  limit: integerQuery(1, 100).default('50'),
  offset: integerQuery(0, Infinity).default('0'),
  'name?': storableText,
  'live_url?': storableText,
  'shadow_url?': storableText,
  sort: type.enumerated(...GATE_SORT_KEYS).default('created_at'),
  order: sortOrder.default('desc'),
  '+': 'reject',
})

export const gateEnvelope = type({ data: gate })
export const gateListEnvelope = type({ data: gate.array(), pagination: paginationMeta })
