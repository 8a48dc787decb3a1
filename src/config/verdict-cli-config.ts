import { type } from 'arktype'
import { parseDateTime } from '../text/date-time.ts'
import { THRESHOLD_NAMES, THRESHOLD_RULES, type ThresholdName, type ThresholdOverrides } from '../verdict/index.ts'
import { API_CLIENT_FLAGS, loadApiClientConfig, type ApiClientConfig } from './api-client-config.ts'
import { parseFlags } from './cli-args.ts'
import { ConfigError } from './config-error.ts'
import { decimal, positiveAgeField, uuidField } from './env-fields.ts'
import type { Environment } from './environment.ts'
import { validateEnvironment, variableNames } from './validate-env.ts'

/** A time range as the API takes it; an open end is the API's default. */
export interface TimeWindow {
  readonly from?: Date
  readonly to?: Date
}

/** `--max-diff-rate` for max_diff_rate, and so on: the same names as the query, dashed. */
export const thresholdFlag = (name: ThresholdName) => `--${name.replaceAll('_', '-')}`

/** The flags of the verdict's thresholds and window, shared by `verdict` and `replay`. */
export const THRESHOLD_FLAGS = Object.fromEntries(THRESHOLD_NAMES.map((name) => [thresholdFlag(name).slice(2), 'value' as const]))
export const WINDOW_FLAGS = { from: 'value', to: 'value', window: 'value' } as const

/** `--ignore-noise` (the API's default) or `--no-ignore-noise`, shared by `verdict` and `replay`. */
export const NOISE_FLAGS = { 'ignore-noise': 'switch', 'no-ignore-noise': 'switch' } as const

const dateTimeFlag = type('string').pipe((text, ctx) =>
  parseDateTime(text.trim()) ?? ctx.error('an RFC 3339 date-time such as 2026-01-02T15:04:05Z'),
)

function thresholdField(name: ThresholdName) {
  const { valid, rule } = THRESHOLD_RULES[name]
  return type('string').pipe((text, ctx) => {
    const n = decimal(text)
    return valid(n) ? n : ctx.error(rule)
  })
}

const windowFields = { '--from?': dateTimeFlag, '--to?': dateTimeFlag, '--window?': positiveAgeField } as const
const thresholdFields = Object.fromEntries(THRESHOLD_NAMES.map((name) => [`${thresholdFlag(name)}?`, thresholdField(name)]))

/**
 * `--from`/`--to`, or `--window <duration>`: the window that ends now.
 * Neither: undefined ends, the API's default.
 */
export function readWindow(values: Readonly<Record<string, string | undefined>>, now: Date): TimeWindow {
  const v = validateEnvironment(type(windowFields), values, variableNames(windowFields))
  if (v['--window'] !== undefined) {
    if (v['--from'] !== undefined || v['--to'] !== undefined) {
      throw new ConfigError('--window', undefined, 'cannot be combined with --from or --to: give either')
    }
    return { from: new Date(now.getTime() - v['--window']), to: now }
  }
  if (v['--from'] !== undefined && v['--to'] !== undefined && v['--from'] > v['--to']) {
    throw new ConfigError('--from', values['--from'], 'must not be after --to')
  }
  return { from: v['--from'], to: v['--to'] }
}

/** The threshold flags given, by threshold name; the others are left to the gate and the defaults. */
export function readThresholds(values: Readonly<Record<string, string | undefined>>): ThresholdOverrides {
  const v = validateEnvironment(type(thresholdFields), values, THRESHOLD_NAMES.map(thresholdFlag)) as Record<string, number | undefined>
  return Object.fromEntries(THRESHOLD_NAMES.flatMap((name) => (v[thresholdFlag(name)] === undefined ? [] : [[name, v[thresholdFlag(name)]]])))
}

/**
 * Whether noise-only diffs are left out (docs/ci.md "Noise"): true or
 * false as a switch says, undefined without one (the API's default, true).
 */
export function readIgnoreNoise(switches: ReadonlySet<string>): boolean | undefined {
  const on = switches.has('--ignore-noise')
  const off = switches.has('--no-ignore-noise')
  if (on && off) throw new ConfigError('--ignore-noise', undefined, 'cannot be combined with --no-ignore-noise: give either')
  return on ? true : off ? false : undefined
}

export const VERDICT_FLAGS = {
  gate: 'value',
  ...WINDOW_FLAGS,
  ...THRESHOLD_FLAGS,
  ...NOISE_FLAGS,
  junit: 'value',
  ...API_CLIENT_FLAGS,
  help: 'switch',
} as const

export interface VerdictCliConfig {
  readonly api: ApiClientConfig
  readonly gateId: string
  readonly window: TimeWindow
  readonly thresholds: ThresholdOverrides
  /** `ignore_noise` for the API; undefined leaves its default. */
  readonly ignoreNoise: boolean | undefined
  /** Where to write the JUnit XML report, if asked. */
  readonly junitFile: string | undefined
}

/** `bun run verdict -- ...` (docs/ci.md); `help` when --help was asked, before anything else is checked. */
export function loadVerdictCliConfig(env: Environment, argv: readonly string[], now = new Date()): VerdictCliConfig | 'help' {
  const flags = parseFlags('verdict', argv, VERDICT_FLAGS)
  if (flags.switches.has('--help')) return 'help'
  const { '--gate': gateId } = validateEnvironment(type({ '--gate': uuidField }), flags.values, ['--gate'])
  const junitFile = flags.values['--junit']
  if (junitFile !== undefined && junitFile.trim() === '') throw new ConfigError('--junit', junitFile, 'must be a file path')
  return Object.freeze({
    gateId,
    window: readWindow(flags.values, now),
    thresholds: readThresholds(flags.values),
    ignoreNoise: readIgnoreNoise(flags.switches),
    junitFile,
    api: loadApiClientConfig(env, flags.values),
  })
}
