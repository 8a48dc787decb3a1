import { withoutUserinfo } from '../net/base-url.ts'

/**
 * A configuration value that fails its rule. Its message is the one line
 * printed at startup before exiting 1 (docs/reference/configuration.md "How
 * values are read"): the variable, the value and the rule. Secret values are
 * never echoed.
 */
export class ConfigError extends Error {
  readonly code = 'invalid-config'
  constructor(
    readonly variable: string,
    readonly value: string | undefined,
    readonly rule: string,
    readonly secret = false,
  ) {
    // A URL variable's credentials never reach the line, whoever raised it.
    super(formatLine(variable, value === undefined || !variable.endsWith('_URL') ? value : withoutUserinfo(value), rule, secret))
  }
}

function formatLine(variable: string, value: string | undefined, rule: string, secret: boolean) {
  if (value === undefined) return `${variable}: ${rule}`
  if (secret) return `${variable}: the value (${value.length} characters, not shown) ${rule}`
  return `${variable}: ${JSON.stringify(value)} ${rule}`
}
