import { type } from 'arktype'
import { SAFE_METHODS } from '../replay/replay-plan.ts'
import type { ThresholdOverrides } from '../verdict/index.ts'
import { API_CLIENT_FLAGS, loadApiClientConfig, type ApiClientConfig } from './api-client-config.ts'
import { parseFlags } from './cli-args.ts'
import { ConfigError } from './config-error.ts'
import { decimal, httpUrlField, integerField, positiveDurationField, uuidField } from './env-fields.ts'
import type { Environment } from './environment.ts'
import { validateEnvironment, variableNames } from './validate-env.ts'
import { NOISE_FLAGS, readIgnoreNoise, readThresholds, readWindow, THRESHOLD_FLAGS, WINDOW_FLAGS, type TimeWindow } from './verdict-cli-config.ts'

export const REPLAY_FLAGS = {
  gate: 'value',
  target: 'value',
  ...WINDOW_FLAGS,
  limit: 'value',
  rate: 'value',
  concurrency: 'value',
  method: 'value',
  header: 'repeated',
  'allow-redacted': 'switch',
  timeout: 'value',
  'progress-interval': 'value',
  ...THRESHOLD_FLAGS,
  ...NOISE_FLAGS,
  junit: 'value',
  ...API_CLIENT_FLAGS,
  help: 'switch',
} as const

export interface ReplayCliConfig {
  readonly api: ApiClientConfig
  /** The gate whose captures are replayed. */
  readonly gateId: string
  /** The candidate's base URL, without a trailing slash. */
  readonly target: string
  readonly window: TimeWindow
  /** At most this many captures, the oldest of the window first. */
  readonly limit: number | undefined
  /** Requests per second to the candidate; Infinity for no limit. */
  readonly rate: number
  readonly concurrency: number
  /** Upper-cased methods to send. */
  readonly methods: ReadonlySet<string>
  /** `--header` by lower-cased name. */
  readonly headers: ReadonlyMap<string, { readonly name: string; readonly value: string }>
  readonly allowRedacted: boolean
  /** How long the candidate may take to answer one request, in ms. */
  readonly timeoutMs: number
  /** How often a plain progress line is printed when the output is not a terminal, in ms. */
  readonly progressIntervalMs: number
  readonly thresholds: ThresholdOverrides
  /** `ignore_noise` for the verdict; undefined leaves the API's default. */
  readonly ignoreNoise: boolean | undefined
  readonly junitFile: string | undefined
}

/** The built-in defaults of the replay's flags (docs/ci.md "Replay"). */
export const REPLAY_DEFAULTS = Object.freeze({ concurrency: 16, timeoutMs: 10_000, progressIntervalMs: 5_000 })

/** The most concurrent requests: Bun's fetch keeps 64 idle sockets in all, and the replay has two peers. */
export const MAX_CONCURRENCY = 256

const rateField = type('string').pipe((text, ctx) => {
  const n = decimal(text)
  return Number.isFinite(n) && n > 0 ? n : ctx.error('a number of requests per second above 0')
})

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

const methodListField = type('string').pipe((text, ctx) => {
  const methods = text.split(',').map((m) => m.trim().toUpperCase()).filter((m) => m !== '')
  if (methods.length === 0 || !methods.every((m) => TOKEN.test(m))) return ctx.error('a comma-separated list of methods such as GET,HEAD,POST')
  return new Set(methods)
})

const fields = {
  '--gate': uuidField,
  '--target': httpUrlField,
  '--limit?': integerField(1),
  '--rate?': rateField,
  '--concurrency?': integerField(1, MAX_CONCURRENCY),
  '--method?': methodListField,
  '--timeout?': positiveDurationField,
  '--progress-interval?': positiveDurationField,
} as const

/**
 * `--header 'Name: value'`, repeatable: a field name (RFC 9110 token) and
 * a value without CR, LF or NUL. The value is never echoed in an error:
 * it is typically a credential.
 */
export function parseHeaderFlags(values: readonly string[]): Map<string, { name: string; value: string }> {
  const headers = new Map<string, { name: string; value: string }>()
  for (const text of values) {
    const colon = text.indexOf(':')
    const name = colon === -1 ? '' : text.slice(0, colon).trim()
    const value = colon === -1 ? '' : text.slice(colon + 1).trim()
    if (!TOKEN.test(name) || /[\0\r\n]/.test(value)) {
      throw new ConfigError('--header', undefined, `must be "Name: value" with a field name and a value on one line (one of ${values.length} is not; its text is not shown)`)
    }
    headers.set(name.toLowerCase(), { name, value })
  }
  return headers
}

/** `bun run replay -- ...` (docs/ci.md "Replay"); `help` when --help was asked. */
export function loadReplayCliConfig(env: Environment, argv: readonly string[], now = new Date()): ReplayCliConfig | 'help' {
  const flags = parseFlags('replay', argv, REPLAY_FLAGS)
  if (flags.switches.has('--help')) return 'help'
  const v = validateEnvironment(type(fields), flags.values, variableNames(fields))
  const junitFile = flags.values['--junit']
  if (junitFile !== undefined && junitFile.trim() === '') throw new ConfigError('--junit', junitFile, 'must be a file path')
  return Object.freeze({
    gateId: v['--gate'],
    target: v['--target'],
    window: readWindow(flags.values, now),
    limit: v['--limit'],
    rate: v['--rate'] ?? Infinity,
    concurrency: v['--concurrency'] ?? REPLAY_DEFAULTS.concurrency,
    methods: v['--method'] ?? new Set<string>(SAFE_METHODS),
    headers: parseHeaderFlags(flags.repeated['--header'] ?? []),
    allowRedacted: flags.switches.has('--allow-redacted'),
    timeoutMs: v['--timeout'] ?? REPLAY_DEFAULTS.timeoutMs,
    progressIntervalMs: v['--progress-interval'] ?? REPLAY_DEFAULTS.progressIntervalMs,
    thresholds: readThresholds(flags.values),
    ignoreNoise: readIgnoreNoise(flags.switches),
    junitFile,
    api: loadApiClientConfig(env, flags.values),
  })
}
