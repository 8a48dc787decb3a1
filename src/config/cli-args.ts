import { parseArgs } from 'node:util'
import { ConfigError } from './config-error.ts'

/** How a command-line flag is given: one value, a switch, or a value that may be repeated. */
export type FlagKind = 'value' | 'switch' | 'repeated'

/** A command's flags by name without the dashes (`max-diff-rate`). */
export type FlagSpec = Readonly<Record<string, FlagKind>>

export interface ParsedFlags {
  /** Single values keyed as written (`--gate`), for validateEnvironment. */
  readonly values: Readonly<Record<string, string | undefined>>
  readonly switches: ReadonlySet<string>
  readonly repeated: Readonly<Record<string, readonly string[]>>
}

/**
 * The flags of `bun run <command> -- ...` (docs/ci.md). Anything that is
 * not one of `spec` (an unknown flag, a stray argument, a flag without its
 * value) is a ConfigError naming it, never silently ignored: a mistyped
 * threshold would otherwise leave the default in force.
 */
export function parseFlags(command: string, argv: readonly string[], spec: FlagSpec): ParsedFlags {
  const options = Object.fromEntries(
    Object.entries(spec).map(([name, kind]) => [name, kind === 'switch' ? { type: 'boolean' as const } : { type: 'string' as const, multiple: kind === 'repeated' }]),
  )
  let parsed: Record<string, string | boolean | string[] | undefined>
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as typeof parsed
  } catch (error) {
    throw flagError(command, error)
  }
  const values: Record<string, string | undefined> = {}
  const switches = new Set<string>()
  const repeated: Record<string, string[]> = {}
  for (const [name, kind] of Object.entries(spec)) {
    const value = parsed[name]
    if (value === undefined) continue
    if (kind === 'switch') switches.add(`--${name}`)
    else if (kind === 'repeated') repeated[`--${name}`] = value as string[]
    else values[`--${name}`] = value as string
  }
  return { values, switches, repeated }
}

/** node:util's parse errors as one ConfigError line naming the argument. */
function flagError(command: string, error: unknown): ConfigError {
  const code = (error as { code?: string }).code
  const message = (error as Error).message ?? String(error)
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? ''
  const flag = quoted.split(' ')[0] ?? quoted
  const usage = `see \`bun run ${command} -- --help\``
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new ConfigError(flag, undefined, `is not an option of bun run ${command}; ${usage}`)
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new ConfigError(`bun run ${command}`, undefined, `takes only --flags, not the argument "${quoted}"; ${usage}`)
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return message.includes('does not take an argument')
        ? new ConfigError(flag, undefined, 'is a switch and takes no value')
        : new ConfigError(flag, undefined, 'needs a value (write --flag=-value for one that starts with a dash)')
    default:
      return new ConfigError(`bun run ${command}`, undefined, message)
  }
}
