import { type } from 'arktype'
import { CHECK_NAMES, THRESHOLD_NAMES, THRESHOLD_RULES, VERDICTS, type ThresholdName } from '../../verdict/index.ts'
import { decimal } from '../../config/env-fields.ts'
import { booleanQuery, dateTimeQuery } from './fields.ts'

/** A threshold as JSON carries it (the gate field `verdict`), under its rule. */
function thresholdValue(name: ThresholdName) {
  const { valid, rule } = THRESHOLD_RULES[name]
  return type('number').narrow((n, ctx) => (valid(n) ? true : ctx.mustBe(rule)))
}

/** A threshold as the query string carries it. */
function thresholdQuery(name: ThresholdName) {
  const { valid, rule } = THRESHOLD_RULES[name]
  return type('string').pipe((text, ctx) => {
    const n = decimal(text)
    return valid(n) ? n : ctx.error(rule)
  })
}

const optional = <T>(make: (name: ThresholdName) => T) =>
  Object.fromEntries(THRESHOLD_NAMES.map((name) => [`${name}?`, make(name)])) as { [K in `${ThresholdName}?`]: T }

/**
 * The gate field `verdict` (docs/ci.md "Thresholds"): any of the four
 * thresholds, the others left to the built-in defaults. Returned as
 * stored: `{}` when none was set.
 */
export const verdictSettings = type({ ...optional(thresholdValue), '+': 'reject' })

/** As returned with a gate: the shape alone, so that rows written by earlier versions still read. */
export const storedVerdictSettings = type(Object.fromEntries(THRESHOLD_NAMES.map((name) => [`${name}?`, 'number'])) as {
  [K in `${ThresholdName}?`]: 'number'
})

export const verdictQuery = type({
  'from?': dateTimeQuery,
  'to?': dateTimeQuery,
  ...optional(thresholdQuery),
  'ignore_noise?': booleanQuery,
  '+': 'reject',
})

export const verdictCheck = type({
  name: type.enumerated(...CHECK_NAMES),
  scope: 'string',
  value: 'number',
  threshold: 'number',
  pass: 'boolean',
})

export const verdictReport = type({
  verdict: type.enumerated(...VERDICTS),
  checks: verdictCheck.array(),
  window: { from: 'string', to: 'string' },
  requests: 'number.integer',
  live_failures: 'number.integer',
  ignore_noise: 'boolean',
  noise_ignored: 'number.integer',
})

export type VerdictReport = typeof verdictReport.infer

export const verdictEnvelope = type({ data: verdictReport })
