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
    // A URL's credentials never reach the line, whoever raised it.
    super(formatLine(variable, value === undefined || !isUrlSetting(variable) ? value : withoutUserinfo(value), rule, secret))
  }
}

/** Settings whose values are URLs: `*_URL` variables and the commands' `--api-url` and `--target`. */
function isUrlSetting(name: string): boolean {
  return name.endsWith('_URL') || name === '--api-url' || name === '--target'
}

function formatLine(variable: string, value: string | undefined, rule: string, secret: boolean) {
  if (value === undefined) return `${variable}: ${rule}`
  if (secret) return `${variable}: the value (${value.length} characters, not shown) ${rule}`
  return `${variable}: ${JSON.stringify(value)} ${rule}`
}
