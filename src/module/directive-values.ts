/**
 * Validation of single `svc_gate` values, shared by block text (values are
 * strings) and the options object (values may also be numbers, booleans or
 * arrays). Each reader returns the typed value or throws
 * `ModuleConfigError` pointing at the value.
 */
import { MAX_TIMER_MS, parseDuration } from '../config/duration.ts'
import { fieldPathProblem } from '../diff/field-path.ts'
import { EndpointTemplateError, EndpointTemplates } from '../insights/index.ts'
import { withoutUserinfo } from '../net/base-url.ts'
import { parseCidr } from '../net/cidr.ts'
import { compileShadowRules, ShadowRuleError } from '../proxy/policy/shadow-rules.ts'
import { ModuleConfigError } from './module-config-error.ts'
import { describeValue, type RawField } from './raw-section.ts'

export type ValueReader<T> = (field: RawField) => T

/** Decimal numbers as JavaScript prints them, exponent included (`1e-7`). */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i
const WHOLE = /^\d+$/
/** Field paths start with `status`, `headers.` or `body.` (docs/diff.md). */
const FIELD_PATH = /^(status|headers|body)(\..+)?$/s

function invalid(field: RawField, index: number, expected: string): ModuleConfigError {
  const at = field.valueAt[index] ?? field.at
  return new ModuleConfigError(field.name, expected, describeValue(field.values[index]), at)
}

/** The one value of a single-valued directive. */
function single(field: RawField): unknown {
  if (field.values.length > 1) {
    const found = `${field.values.length} values`
    throw new ModuleConfigError(field.name, 'one value', found, field.valueAt[1] ?? field.at)
  }
  return field.values[0]
}

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value + 0 // turns -0 into 0
  if (typeof value === 'string' && NUMBER.test(value)) return Number(value) + 0
  return Number.NaN
}

/** `live` and `shadow`: base URLs, so a query or fragment is a mistake. */
export const readUrl: ValueReader<string> = (field) => {
  const value = single(field)
  const expected = 'an http or https URL without query or fragment'
  // The value quoted without its credentials, whatever it looks like.
  const refused = () => new ModuleConfigError(field.name, expected, describeValue(typeof value === 'string' ? withoutUserinfo(value) : value), field.valueAt[0] ?? field.at)
  if (typeof value !== 'string' || !URL.canParse(value)) throw refused()
  const url = new URL(value)
  const plain = !value.includes('?') && !value.includes('#') && value === value.trim()
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !plain) throw refused()
  return value
}

/** `sampling_rate`: "Fraction of traffic shadowed, 0.0 to 1.0". */
export const readRate: ValueReader<number> = (field) => {
  const rate = toNumber(single(field))
  if (!(rate >= 0 && rate <= 1)) throw invalid(field, 0, 'a number from 0 to 1')
  return rate
}

/** `diff_float_tolerance`: an absolute tolerance, 0 meaning exact. */
export const readTolerance: ValueReader<number> = (field) => {
  const tolerance = toNumber(single(field))
  if (!(tolerance >= 0 && Number.isFinite(tolerance))) throw invalid(field, 0, 'a number >= 0')
  return tolerance
}

/**
 * A Go-style duration (docs/reference/configuration.md "How values are read")
 * in milliseconds; the object form may also give a number of milliseconds.
 * Timeouts must be positive; `idle_conn_timeout` may be 0 ("no timeout").
 */
export function readDuration(min: 'positive' | 'zero'): ValueReader<number> {
  const expected =
    min === 'positive'
      ? 'a positive duration such as "300ms", "5s" or "1m30s", at most 596h'
      : 'a duration >= 0 such as "90s" (0 means no timeout), at most 596h'
  return (field) => {
    const value = single(field)
    const ms = typeof value === 'string' ? parseDuration(value) : toNumber(value)
    const ok =
      ms !== undefined && Number.isFinite(ms) && (min === 'positive' ? ms > 0 : ms >= 0) && ms <= MAX_TIMER_MS
    if (!ok) throw invalid(field, 0, expected)
    return ms + 0
  }
}

/**
 * A whole number >= `min` (connection counts, byte sizes), and at most
 * `max` when given; `meaning` says what 0 means, or why `min` is above it.
 */
export function readCount(meaning: string, min = 0, max = Number.MAX_SAFE_INTEGER): ValueReader<number> {
  const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`
  const expected = `a whole number ${range} (${meaning})`
  return (field) => {
    const value = single(field)
    const count = typeof value === 'string' && !WHOLE.test(value) ? Number.NaN : toNumber(value)
    if (!(Number.isSafeInteger(count) && count >= min && count <= max)) throw invalid(field, 0, expected)
    return count
  }
}

/** `diff_sort_arrays`: nginx's `on`/`off`, or `true`/`false`, any case. */
export const readSwitch: ValueReader<boolean> = (field) => {
  const value = single(field)
  if (typeof value === 'boolean') return value
  const text = typeof value === 'string' ? value.toLowerCase() : ''
  if (text === 'on' || text === 'true') return true
  if (text === 'off' || text === 'false') return false
  throw invalid(field, 0, 'on, off, true or false')
}

/**
 * Field lists: every value is split on commas and trimmed; empty pieces
 * (a trailing comma, `a, b` written unquoted) are dropped. Each path must
 * name the status, the headers or the body, and must parse with the diff's
 * own parser (as SVC_APP_DIFF_* and SVC_APP_REDACTED_FIELDS do), so that a
 * path the comparison cannot use fails here, with its position, rather
 * than when the module starts.
 */
export const readFieldList: ValueReader<string[]> = (field) => {
  const paths: string[] = []
  field.values.forEach((value, index) => {
    if (typeof value !== 'string') throw invalid(field, index, 'field paths as text')
    for (const piece of value.split(',')) {
      const path = piece.trim()
      if (path === '') continue
      if (!FIELD_PATH.test(path)) {
        throw new ModuleConfigError(
          field.name,
          'field paths that start with "status", "headers." or "body."',
          JSON.stringify(path),
          field.valueAt[index] ?? field.at,
        )
      }
      const problem = fieldPathProblem(path)
      if (problem !== undefined) {
        const at = field.valueAt[index] ?? field.at
        throw new ModuleConfigError(field.name, 'field paths', JSON.stringify(path), at, problem)
      }
      paths.push(path)
    }
  })
  return paths
}

/**
 * `trusted_proxies`: IP addresses and CIDR networks, read as the API's and
 * the proxy's SVC_APP_TRUSTED_PROXIES are (`src/net/cidr.ts`); split and
 * trimmed as field lists are. Kept as written, for `printBlock`.
 */
export const readAddressList: ValueReader<string[]> = (field) => {
  const entries: string[] = []
  field.values.forEach((value, index) => {
    if (typeof value !== 'string') throw invalid(field, index, 'IP addresses or CIDR networks as text')
    for (const piece of value.split(',')) {
      const entry = piece.trim()
      if (entry === '') continue
      if (parseCidr(entry) === undefined) {
        const at = field.valueAt[index] ?? field.at
        throw new ModuleConfigError(field.name, 'IP addresses or CIDR networks', JSON.stringify(entry), at)
      }
      entries.push(entry)
    }
  })
  return entries
}

/**
 * `endpoints`: explicit endpoint templates for the diff log
 * (docs/insights.md "Explicit templates"), split and trimmed as field
 * lists are and checked by the rules of a gate's `endpoints`; an error
 * points at the value that holds the bad template. Kept as written, for
 * `printBlock`.
 */
export const readEndpointList: ValueReader<string[]> = (field) => {
  const templates: string[] = []
  /** The value each template came from. */
  const from: number[] = []
  field.values.forEach((value, index) => {
    if (typeof value !== 'string') throw invalid(field, index, 'path templates as text')
    for (const piece of value.split(',')) {
      const template = piece.trim()
      if (template === '') continue
      templates.push(template)
      from.push(index)
    }
  })
  try {
    EndpointTemplates.parse(templates)
  } catch (error) {
    if (!(error instanceof EndpointTemplateError)) throw error
    const index = error.index === undefined ? undefined : from[error.index]
    const at = (index === undefined ? undefined : field.valueAt[index]) ?? field.at
    const found = error.template === undefined ? `${templates.length} templates` : JSON.stringify(error.template)
    const expected = 'path templates such as /v2/products/{sku}/price'
    throw new ModuleConfigError(field.name, expected, found, at, error.message)
  }
  return templates
}

/**
 * Which of the directive's values holds the rule at `position` (1-based)
 * of the list the values make once joined with spaces: where that rule's
 * text starts, counted in the joined text.
 */
function valueHoldingRule(values: readonly string[], position: number): number {
  const joined = values.join(' ')
  let at = 0
  for (let rule = 1; rule < position; rule++) at = joined.indexOf(',', at) + 1
  while (joined[at] === ' ') at++
  let end = 0
  for (let i = 0; i < values.length; i++) {
    end += values[i]!.length
    if (at < end) return i
    end += 1 // the joining space
  }
  return values.length - 1
}

/**
 * `shadow_rules`: the rule list of docs/proxy.md "Which requests are shadowed".
 * Values are joined with a space, so an unquoted `shadow_rules allow GET:/a`
 * reads as the rule it looks like. Compiled here once to fail at startup.
 */
export const readRules: ValueReader<string> = (field) => {
  if (field.values.some((value) => typeof value !== 'string')) {
    throw invalid(field, 0, 'rules as text, such as "allow POST:/api/search"')
  }
  const text = field.values.join(' ')
  try {
    compileShadowRules(text)
  } catch (error) {
    if (!(error instanceof ShadowRuleError)) throw error
    const at = field.valueAt[valueHoldingRule(field.values as string[], error.position)] ?? field.at
    const expected = 'rules of the form "ACTION METHOD:path"'
    throw new ModuleConfigError(field.name, expected, JSON.stringify(text), at, error.message)
  }
  return text
}
