/**
 * Pieces of the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/#text-format-details).
 */

/** The `Content-Type` of a `/metrics` response in text format 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

/** "Metric names may contain ASCII letters and digits, as well as underscores and colons." */
export const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/

/** Label names: letters, digits and underscores; names starting with `__` are reserved. */
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

const LABEL_VALUE_SPECIALS = /[\\"\n]/
const HELP_SPECIALS = /[\\\n]/

/**
 * "label_value can be any sequence of UTF-8 characters, but the backslash
 * (\), double-quote ("), and line feed (\n) characters have to be escaped as
 * \\, \", and \n, respectively."
 */
export function escapeLabelValue(value: string): string {
  if (!LABEL_VALUE_SPECIALS.test(value)) return value
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
}

/** "For HELP lines, the backslash and line feed characters are escaped; double-quotes are not." */
export function escapeHelp(help: string): string {
  if (!HELP_SPECIALS.test(help)) return help
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')
}

/**
 * Formats a sample value. The format spells the non-finite floats `+Inf`,
 * `-Inf` and `NaN` (JavaScript would print `Infinity`).
 */
export function formatSampleValue(value: number): string {
  if (Number.isFinite(value)) return String(value)
  if (value === Infinity) return '+Inf'
  if (value === -Infinity) return '-Inf'
  return 'NaN'
}

/** `name="value",...` for the given label names and already stringified values. */
export function formatLabelPairs(names: readonly string[], values: readonly string[]): string {
  let out = ''
  for (let i = 0; i < names.length; i++) {
    if (i > 0) out += ','
    out += `${names[i]}="${escapeLabelValue(values[i])}"`
  }
  return out
}
