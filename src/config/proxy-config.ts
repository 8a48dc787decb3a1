import { type } from 'arktype'
import { DEFAULT_DIFF_CONFIG, type DiffConfig } from '../diff/diff-config.ts'
import { fieldPathProblem } from '../diff/field-path.ts'
import { EndpointTemplateError, EndpointTemplates } from '../insights/index.ts'
import { DEFAULT_MAX_BYTES_IN_FLIGHT } from '../proxy/policy/byte-budget.ts'
import { SHADOW_CLIENTS, type ShadowSettings } from '../proxy/policy/shadow-settings.ts'
import { compileShadowRules, ShadowRuleError } from '../proxy/policy/shadow-rules.ts'
import { DEFAULT_NOISE_MAX_PER_SECOND, DEFAULT_NOISE_SAMPLE_RATE, MAX_NOISE_PER_SECOND } from '../proxy/policy/noise-sampler.ts'
import { commonFields, resolveLogging, type LoggingConfig } from './common-config.ts'
import { ConfigError } from './config-error.ts'
import {
  apiKeyField,
  booleanField,
  cidrListField,
  enumField,
  httpUrlField,
  integerField,
  minimumNumberField,
  nonNegativeDurationField,
  numberField,
  portField,
  positiveDurationField,
  splitList,
  uuidField,
} from './env-fields.ts'
import type { Environment } from './environment.ts'
import { validateEnvironment, variableNames } from './validate-env.ts'
import { currentHost, resolveWorkers, workersField } from './workers-field.ts'

/** Field paths (docs/diff.md), each checked with the diff's own parser. */
const fieldPathListField = type('string').pipe((text, ctx) => {
  const paths = splitList(text)
  for (const path of paths) {
    const problem = fieldPathProblem(path)
    if (problem) return ctx.error(`a comma-separated list of field paths such as body.user.email (${problem})`)
  }
  return paths
})

/**
 * Explicit endpoint templates for the diff log (docs/insights.md "Explicit
 * templates"), checked by the rules of a gate's `endpoints`. A comma in a
 * path is written %2C: templates compare percent-decoded.
 */
const endpointTemplatesField = type('string').pipe((text, ctx) => {
  try {
    return EndpointTemplates.parse(splitList(text))
  } catch (error) {
    if (!(error instanceof EndpointTemplateError)) throw error
    return ctx.error(`a comma-separated list of path templates such as /v2/products/{sku}/price (${error.message})`)
  }
})

/** SVC_APP_PROXY_SERVER's values: Bun's HTTP server, or our own on Bun's TCP sockets. */
export const PROXY_SERVERS = ['bun', 'raw'] as const
export type ProxyServerKind = (typeof PROXY_SERVERS)[number]

/** docs/reference/configuration.md "Common" (proxy). */
const commonProxyFields = {
  SVC_APP_PORT: portField.default('8080'),
  SVC_APP_ADMIN_PORT: portField.default('8081'),
  SVC_APP_LIVE_TIMEOUT: positiveDurationField.default('5s'),
  SVC_APP_SHADOW_TIMEOUT: positiveDurationField.default('10s'),
  /** The shadow's response head alone; at most SVC_APP_SHADOW_TIMEOUT (docs/proxy.md "The shadow's client"). */
  'SVC_APP_SHADOW_HEAD_TIMEOUT?': positiveDurationField,
  /** The client of an `http:` shadow; unset, DEFAULT_SHADOW_CLIENT (docs/proxy.md "The shadow's client"). */
  'SVC_APP_SHADOW_CLIENT?': enumField(SHADOW_CLIENTS),
  SVC_APP_MAX_BODY_SIZE: integerField(0).default('10485760'),
  SVC_APP_SAMPLING_RATE: numberField(0, 1).default('1.0'),
  /** The noise check (docs/proxy.md "Noise check"): the fraction of shadowed requests repeated to live, and a cap. */
  SVC_APP_NOISE_SAMPLE_RATE: numberField(0, 1).default(String(DEFAULT_NOISE_SAMPLE_RATE)),
  SVC_APP_NOISE_MAX_PER_SECOND: integerField(1, MAX_NOISE_PER_SECOND).default(String(DEFAULT_NOISE_MAX_PER_SECOND)),
  'SVC_APP_SHADOW_RULES?': 'string',
  SVC_APP_MAX_CONCURRENT_CALLBACKS: integerField(0).default('200'),
  // At least 1: unbounded is what the budget exists to prevent (docs/proxy.md "Memory").
  SVC_APP_MAX_BYTES_IN_FLIGHT: integerField(1).default(String(DEFAULT_MAX_BYTES_IN_FLIGHT)),
  SVC_APP_READ_TIMEOUT: positiveDurationField.default('30s'),
  SVC_APP_WRITE_TIMEOUT: positiveDurationField.default('60s'),
  SVC_APP_IDLE_TIMEOUT: positiveDurationField.default('120s'),
  SVC_APP_METRICS_ENABLED: booleanField.default('true'),
  SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS: integerField(0).default('100'),
  SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS_PER_HOST: integerField(0).default('10'),
  SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST: integerField(0).default('100'),
  SVC_APP_HTTP_CLIENT_IDLE_CONN_TIMEOUT: nonNegativeDurationField.default('90s'),
  SVC_APP_REDACTED_FIELDS: fieldPathListField.default(''),
  /** Peers whose X-Forwarded-Host/-Proto are passed on; the API's syntax (docs/proxy.md "Forwarding"). */
  SVC_APP_TRUSTED_PROXIES: cidrListField.default(''),
  SVC_APP_WORKERS: workersField.default('1'),
  /** The listener in front of the data path (docs/proxy.md "The raw server"). */
  SVC_APP_PROXY_SERVER: enumField(PROXY_SERVERS).default('raw'),
  ...commonFields,
} as const

/**
 * docs/reference/configuration.md "API mode": the three identifying variables
 * are required together.
 */
const apiModeFields = {
  'SVC_APP_API_URL?': httpUrlField,
  'SVC_APP_GATE_ID?': uuidField,
  'SVC_APP_API_KEY?': apiKeyField,
  SVC_APP_API_TIMEOUT: positiveDurationField.default('30s'),
  SVC_APP_MAX_RETRIES: integerField(0).default('3'),
  SVC_APP_RETRY_DELAY: positiveDurationField.default('1s'),
  SVC_APP_CB_FAILURE_THRESHOLD: integerField(1).default('5'),
  SVC_APP_CB_DELAY: positiveDurationField.default('1m'),
  SVC_APP_CB_SUCCESS_THRESHOLD: integerField(1).default('2'),
} as const

/** docs/reference/configuration.md "Standalone mode". */
const standaloneFields = {
  'SVC_APP_LIVE_URL?': httpUrlField,
  'SVC_APP_SHADOW_URL?': httpUrlField,
  SVC_APP_DIFF_IGNORED_FIELDS: fieldPathListField.default(''),
  SVC_APP_DIFF_INCLUDED_FIELDS: fieldPathListField.default(''),
  SVC_APP_DIFF_FLOAT_TOLERANCE: minimumNumberField(0).default('0'),
  SVC_APP_DIFF_SORT_ARRAYS: booleanField.default('false'),
  /** The endpoint and signature of `response diff detected`; in API mode the gate's `endpoints` apply. */
  SVC_APP_ENDPOINTS: endpointTemplatesField.default(''),
} as const

const proxyFields = { ...commonProxyFields, ...apiModeFields, ...standaloneFields } as const

export const proxyConfigSchema = type(proxyFields)

const API_MODE_KEYS = ['SVC_APP_API_URL', 'SVC_APP_GATE_ID', 'SVC_APP_API_KEY'] as const
/**
 * What chooses API mode. Not the key: the API reads SVC_APP_API_KEY too,
 * so one shell (or one .env) that runs both would otherwise make every
 * standalone proxy fail with "set together"; in standalone mode the key is
 * ignored with a warning like any other API-mode variable.
 */
const API_MODE_SELECTORS = ['SVC_APP_API_URL', 'SVC_APP_GATE_ID'] as const
const STANDALONE_KEYS = ['SVC_APP_LIVE_URL', 'SVC_APP_SHADOW_URL'] as const
const API_ONLY_KEYS = variableNames(apiModeFields).filter((k) => !isOneOf(k, API_MODE_SELECTORS))
const STANDALONE_ONLY_KEYS = variableNames(standaloneFields).filter((k) => !isOneOf(k, STANDALONE_KEYS))
const MODES_LINE =
  'configure exactly one proxy mode: API mode (SVC_APP_API_URL, SVC_APP_GATE_ID, SVC_APP_API_KEY) or standalone mode (SVC_APP_LIVE_URL, SVC_APP_SHADOW_URL)'

/** API mode: the gate and the API that owns it (docs/proxy.md "API mode"). */
export interface ApiModeConfig {
  readonly kind: 'api'
  readonly apiUrl: string
  readonly gateId: string
  /** A non-enumerable getter, so that printing or serialising the config never shows it. */
  readonly apiKey: string
  /** Overall deadline of one API call, retries included. */
  readonly apiTimeoutMs: number
  readonly maxRetries: number
  readonly retryDelayMs: number
  readonly breaker: {
    readonly failureThreshold: number
    readonly delayMs: number
    readonly successThreshold: number
  }
}

/** Standalone mode: fixed URLs, and the proxy diffs by itself. */
export interface StandaloneModeConfig {
  readonly kind: 'standalone'
  readonly liveUrl: string
  readonly shadowUrl: string
  readonly diff: DiffConfig
  /** SVC_APP_ENDPOINTS, for the diff log's endpoint and signature. */
  readonly endpoints: EndpointTemplates
}

export type ProxyMode = ApiModeConfig | StandaloneModeConfig

/** What the proxy knows before (in API mode) the gate is fetched. */
export type ShadowLimits = Omit<ShadowSettings, 'liveUrl' | 'shadowUrl' | 'gate' | 'diff' | 'endpoints'>

export interface ProxyConfig extends LoggingConfig {
  readonly port: number
  readonly adminPort: number
  readonly readTimeoutMs: number
  readonly writeTimeoutMs: number
  readonly idleTimeoutMs: number
  readonly metricsEnabled: boolean
  readonly shadow: ShadowLimits
  readonly mode: ProxyMode
  /** Variables that are set but belong to the other mode, so have no effect (logged at startup). */
  readonly ignoredVariables: readonly string[]
  /** Processes serving SVC_APP_PORT together (docs/proxy.md "Workers"); `auto` resolved. */
  readonly workers: number
  /** Bun.serve, or the raw server on Bun's TCP sockets (docs/proxy.md "The raw server"). */
  readonly server: ProxyServerKind
}

const ORDER = variableNames(proxyFields)
/** Every variable this component reads, for spotting misspelt ones (known-variables.ts). */
export const PROXY_VARIABLES: readonly string[] = ORDER

/** Validates the proxy's variables and returns its frozen configuration. */
export function loadProxyConfig(env: Environment): ProxyConfig {
  const v = validateEnvironment(proxyConfigSchema, env, ORDER)
  const raw = (name: string) => env[name]?.trim() || undefined

  if (v.SVC_APP_ADMIN_PORT === v.SVC_APP_PORT) {
    throw new ConfigError('SVC_APP_ADMIN_PORT', String(v.SVC_APP_ADMIN_PORT), 'must differ from SVC_APP_PORT')
  }
  if (v.SVC_APP_WRITE_TIMEOUT < v.SVC_APP_LIVE_TIMEOUT) {
    throw new ConfigError(
      'SVC_APP_WRITE_TIMEOUT',
      raw('SVC_APP_WRITE_TIMEOUT') ?? '60s',
      `must be at least SVC_APP_LIVE_TIMEOUT (${raw('SVC_APP_LIVE_TIMEOUT') ?? '5s'})`,
    )
  }
  const headTimeout = v['SVC_APP_SHADOW_HEAD_TIMEOUT']
  if (headTimeout !== undefined && headTimeout > v.SVC_APP_SHADOW_TIMEOUT) {
    // Longer than the whole exchange's bound, it could never fire.
    throw new ConfigError(
      'SVC_APP_SHADOW_HEAD_TIMEOUT',
      raw('SVC_APP_SHADOW_HEAD_TIMEOUT'),
      `must be at most SVC_APP_SHADOW_TIMEOUT (${raw('SVC_APP_SHADOW_TIMEOUT') ?? '10s'})`,
    )
  }
  let shadowRules
  try {
    shadowRules = compileShadowRules(v['SVC_APP_SHADOW_RULES'])
  } catch (error) {
    if (error instanceof ShadowRuleError) {
      throw new ConfigError('SVC_APP_SHADOW_RULES', raw('SVC_APP_SHADOW_RULES'), error.message)
    }
    throw error
  }

  const mode = resolveMode(v, raw)
  const workers = resolveWorkers(v.SVC_APP_WORKERS, raw('SVC_APP_WORKERS'), currentHost())
  const ignoredVariables = (mode.kind === 'api' ? STANDALONE_ONLY_KEYS : API_ONLY_KEYS).filter((k) => raw(k) !== undefined)

  return Object.freeze({
    ...resolveLogging(v.SVC_APP_APP_ENV, v['SVC_APP_LOG_LEVEL'], v['SVC_APP_LOG_FORMAT']),
    port: v.SVC_APP_PORT,
    adminPort: v.SVC_APP_ADMIN_PORT,
    readTimeoutMs: v.SVC_APP_READ_TIMEOUT,
    writeTimeoutMs: v.SVC_APP_WRITE_TIMEOUT,
    idleTimeoutMs: v.SVC_APP_IDLE_TIMEOUT,
    metricsEnabled: v.SVC_APP_METRICS_ENABLED,
    shadow: Object.freeze({
      liveTimeoutMs: v.SVC_APP_LIVE_TIMEOUT,
      shadowTimeoutMs: v.SVC_APP_SHADOW_TIMEOUT,
      ...(headTimeout === undefined ? {} : { shadowHeadTimeoutMs: headTimeout }),
      maxBodyBytes: v.SVC_APP_MAX_BODY_SIZE,
      samplingRate: v.SVC_APP_SAMPLING_RATE,
      noiseSampleRate: v.SVC_APP_NOISE_SAMPLE_RATE,
      noiseMaxPerSecond: v.SVC_APP_NOISE_MAX_PER_SECOND,
      shadowRules,
      maxConcurrentCallbacks: v.SVC_APP_MAX_CONCURRENT_CALLBACKS,
      maxBytesInFlight: v.SVC_APP_MAX_BYTES_IN_FLIGHT,
      httpClient: Object.freeze({
        maxIdleConns: v.SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS,
        maxIdleConnsPerHost: v.SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS_PER_HOST,
        maxConnsPerHost: v.SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST,
        idleConnTimeoutMs: v.SVC_APP_HTTP_CLIENT_IDLE_CONN_TIMEOUT,
        // Only when set, as the module leaves it: the pool applies the default.
        ...(v['SVC_APP_SHADOW_CLIENT'] === undefined ? {} : { shadowClient: v['SVC_APP_SHADOW_CLIENT'] }),
      }),
      redactedFields: Object.freeze(v.SVC_APP_REDACTED_FIELDS),
      trustedProxies: v.SVC_APP_TRUSTED_PROXIES,
    }),
    mode,
    ignoredVariables: Object.freeze(ignoredVariables),
    workers,
    server: v.SVC_APP_PROXY_SERVER,
  })
}

type Validated = typeof proxyConfigSchema.infer

/**
 * The proxy has two mutually exclusive modes; exactly one must be configured
 * (docs/proxy.md "Modes"). One variable of a mode selects it; the rest of that
 * mode's identifying variables are then required.
 */
function resolveMode(v: Validated, raw: (name: string) => string | undefined): ProxyMode {
  const apiSet = API_MODE_SELECTORS.filter((k) => raw(k) !== undefined)
  const standaloneSet = STANDALONE_KEYS.filter((k) => raw(k) !== undefined)
  if (apiSet.length > 0 && standaloneSet.length > 0) {
    throw new ConfigError(standaloneSet[0]!, undefined, `is set together with ${apiSet[0]}; ${MODES_LINE}`)
  }
  if (apiSet.length === 0 && standaloneSet.length === 0) {
    throw new ConfigError('SVC_APP_API_URL or SVC_APP_LIVE_URL', undefined, `is required; ${MODES_LINE}`)
  }
  if (apiSet.length > 0) {
    const missing = API_MODE_KEYS.find((k) => raw(k) === undefined)
    if (missing) throw new ConfigError(missing, undefined, `is required in API mode (${apiSet[0]} is set)`)
    const mode = {
      kind: 'api' as const,
      apiUrl: v['SVC_APP_API_URL']!,
      gateId: v['SVC_APP_GATE_ID']!,
      apiTimeoutMs: v.SVC_APP_API_TIMEOUT,
      maxRetries: v.SVC_APP_MAX_RETRIES,
      retryDelayMs: v.SVC_APP_RETRY_DELAY,
      breaker: Object.freeze({
        failureThreshold: v.SVC_APP_CB_FAILURE_THRESHOLD,
        delayMs: v.SVC_APP_CB_DELAY,
        successThreshold: v.SVC_APP_CB_SUCCESS_THRESHOLD,
      }),
    }
    const apiKey = v['SVC_APP_API_KEY']!
    // A non-enumerable getter: JSON.stringify skips it and inspection shows `[Getter]`.
    Object.defineProperty(mode, 'apiKey', { get: () => apiKey, enumerable: false })
    return Object.freeze(mode) as ApiModeConfig
  }
  const missing = STANDALONE_KEYS.find((k) => raw(k) === undefined)
  if (missing) throw new ConfigError(missing, undefined, `is required in standalone mode (${standaloneSet[0]} is set)`)
  const liveUrl = v['SVC_APP_LIVE_URL']!
  const shadowUrl = v['SVC_APP_SHADOW_URL']!
  if (liveUrl === shadowUrl) {
    // Shadowing live onto itself would double every request live receives.
    throw new ConfigError('SVC_APP_SHADOW_URL', raw('SVC_APP_SHADOW_URL'), 'must differ from SVC_APP_LIVE_URL')
  }
  return Object.freeze({
    kind: 'standalone' as const,
    liveUrl,
    shadowUrl,
    diff: Object.freeze({
      ...DEFAULT_DIFF_CONFIG,
      ignored_fields: v.SVC_APP_DIFF_IGNORED_FIELDS,
      included_fields: v.SVC_APP_DIFF_INCLUDED_FIELDS,
      float_tolerance: v.SVC_APP_DIFF_FLOAT_TOLERANCE,
      sort_arrays: v.SVC_APP_DIFF_SORT_ARRAYS,
    }),
    endpoints: v.SVC_APP_ENDPOINTS,
  })
}

function isOneOf(key: string, keys: readonly string[]): boolean {
  return keys.includes(key)
}
