import { type } from 'arktype'
import type { AllowedHosts } from '../net/allowed-hosts.ts'
import type { CidrSet } from '../net/cidr.ts'
import { commonFields, resolveLogging, type LoggingConfig } from './common-config.ts'
import { ConfigError } from './config-error.ts'
import {
  allowedHostsField,
  apiKeyField,
  booleanField,
  cidrListField,
  durationField,
  integerField,
  originListField,
  portField,
  positiveAgeField,
  positiveDurationField,
} from './env-fields.ts'
import type { Environment } from './environment.ts'
import { validateEnvironment, variableNames } from './validate-env.ts'
import { currentHost, resolveWorkers, workersField } from './workers-field.ts'

const DATABASE_URL_RULE = 'a postgres://, postgresql:// or pglite:// URL'

export const databaseUrlField = type('string').pipe((text, ctx) => {
  const url = text.trim()
  if (!/^(postgres|postgresql|pglite):\/\/./.test(url)) return ctx.error(DATABASE_URL_RULE)
  // Checked here, where the error is one masked line: postgres.js parsed it
  // at connect and threw a stack trace that quoted the URL, password and all.
  return url.startsWith('pglite://') || isPostgresUrl(url) ? url : ctx.error(`${DATABASE_URL_RULE} with ports from 1 to 65535 and well-formed escapes in its user and password`)
})

/**
 * Whether postgres.js can read `url`: each port of its host list
 * (`h1:5432,h2:5432`) in range, user and password whose %-escapes decode.
 * It reads the first host as a URL's and the others by hand, so they are
 * checked the same way here.
 */
function isPostgresUrl(url: string): boolean {
  const authority = /^[a-z]+:\/\/([^/?#]*)/i.exec(url)?.[1] ?? ''
  const at = authority.lastIndexOf('@')
  const hosts = authority.slice(at + 1).split(',')
  const first = url.replace(authority, authority.slice(0, at + 1) + hosts[0])
  if (!URL.canParse(first)) return false
  const parsed = new URL(first)
  const ports = hosts.map((host) => /:(\d*)$/.exec(host)?.[1] ?? '')
  if (ports.some((port) => port !== '' && !(Number(port) >= 1 && Number(port) <= 65535))) return false
  if (hosts.some((host) => /:[^\]:]*\D[^\]:]*$/.test(host) && !host.endsWith(']'))) return false
  try {
    decodeURIComponent(parsed.username)
    decodeURIComponent(parsed.password)
    return true
  } catch {
    return false
  }
}

/** docs/reference/configuration.md "API", with its defaults and rules. */
/** The global retention floor when SVC_APP_RETENTION is unset; echoed by GET /config. */
const DEFAULT_RETENTION = '720h'

/** How far in the future a capture may be dated (SVC_APP_MAX_CLOCK_SKEW) when unset. */
const DEFAULT_MAX_CLOCK_SKEW = '24h'

const apiFields = {
  SVC_APP_DATABASE_URL: databaseUrlField,
  SVC_APP_API_KEY: apiKeyField,
  SVC_APP_PORT: portField.default('8090'),
  SVC_APP_RATE_LIMIT: integerField(1).default('1000'),
  SVC_APP_MAX_BODY_SIZE: integerField(1).default('10485760'),
  SVC_APP_CORS_ORIGINS: originListField.default(''),
  SVC_APP_TRUSTED_PROXIES: cidrListField.default(''),
  'SVC_APP_ALLOWED_HOSTS?': allowedHostsField,
  SVC_APP_RATE_LIMIT_EXEMPT: cidrListField.default(''),
  SVC_APP_RETENTION: positiveAgeField.default(DEFAULT_RETENTION),
  SVC_APP_CLEANUP_INTERVAL: positiveDurationField.default('1h'),
  SVC_APP_MAX_CLOCK_SKEW: positiveAgeField.default(DEFAULT_MAX_CLOCK_SKEW),
  SVC_APP_READ_TIMEOUT: positiveDurationField.default('15s'),
  SVC_APP_WRITE_TIMEOUT: positiveDurationField.default('30s'),
  SVC_APP_IDLE_TIMEOUT: positiveDurationField.default('60s'),
  SVC_APP_METRICS_ENABLED: booleanField.default('true'),
  SVC_APP_HSTS_ENABLED: booleanField.default('false'),
  SVC_APP_HSTS_MAX_AGE: durationField.default('8760h'),
  SVC_APP_DATABASE_MAX_CONNS: integerField(1).default('25'),
  SVC_APP_DATABASE_MIN_CONNS: integerField(0).default('5'),
  SVC_APP_DATABASE_MAX_CONN_IDLE: positiveDurationField.default('5m'),
  SVC_APP_DATABASE_MAX_CONN_LIFE: positiveDurationField.default('1h'),
  SVC_APP_DATABASE_DURABLE_CAPTURES: booleanField.default('false'),
  SVC_APP_WORKERS: workersField.default('1'),
  ...commonFields,
} as const

export const apiConfigSchema = type(apiFields)

export interface ApiConfig extends LoggingConfig {
  readonly databaseUrl: string
  readonly apiKey: string
  readonly port: number
  readonly rateLimitPerMinute: number
  readonly maxBodyBytes: number
  readonly corsOrigins: readonly string[]
  readonly trustedProxies: CidrSet
  /** The Host values answered (DNS rebinding); undefined answers any. */
  readonly allowedHosts: AllowedHosts | undefined
  /** Clients never rate limited (proxies reporting captures), matched on the client address. */
  readonly rateLimitExempt: CidrSet
  /** The global retention floor, in ms, and as the operator wrote it. */
  readonly retentionMs: number
  readonly retention: string
  readonly cleanupIntervalMs: number
  /**
   * How far ahead of the API's clock a capture's created_at may be, in ms,
   * and as the operator wrote it: a capture dated later is refused (400).
   */
  readonly maxClockSkewMs: number
  readonly maxClockSkew: string
  readonly readTimeoutMs: number
  readonly writeTimeoutMs: number
  readonly idleTimeoutMs: number
  readonly metricsEnabled: boolean
  /** max-age in seconds, or undefined when HSTS is off. */
  readonly hstsMaxAgeSeconds: number | undefined
  readonly database: {
    readonly maxConns: number
    readonly minConns: number
    readonly maxConnIdleMs: number
    readonly maxConnLifeMs: number
    /** Capture inserts commit synchronously (README "Decisions", ingest durability). */
    readonly durableCaptures: boolean
  }
  /** Processes serving SVC_APP_PORT together (docs/proxy.md "Workers"); `auto` resolved. */
  readonly workers: number
}

const ORDER = variableNames(apiFields)
/** Every variable this component reads, for spotting misspelt ones (known-variables.ts). */
export const API_VARIABLES: readonly string[] = ORDER

/** Validates the API's variables and returns its frozen configuration. */
export function loadApiConfig(env: Environment): ApiConfig {
  const v = validateEnvironment(apiConfigSchema, env, ORDER)
  if (v.SVC_APP_WRITE_TIMEOUT < v.SVC_APP_READ_TIMEOUT) {
    throw new ConfigError('SVC_APP_WRITE_TIMEOUT', env.SVC_APP_WRITE_TIMEOUT ?? '30s', `must be at least SVC_APP_READ_TIMEOUT (${env.SVC_APP_READ_TIMEOUT ?? '15s'})`)
  }
  if (v.SVC_APP_IDLE_TIMEOUT < v.SVC_APP_WRITE_TIMEOUT) {
    throw new ConfigError('SVC_APP_IDLE_TIMEOUT', env.SVC_APP_IDLE_TIMEOUT ?? '60s', `must be at least SVC_APP_WRITE_TIMEOUT (${env.SVC_APP_WRITE_TIMEOUT ?? '30s'})`)
  }
  if (v.SVC_APP_HSTS_ENABLED && v.SVC_APP_HSTS_MAX_AGE <= 0) {
    throw new ConfigError('SVC_APP_HSTS_MAX_AGE', env.SVC_APP_HSTS_MAX_AGE, 'must be a positive duration when SVC_APP_HSTS_ENABLED is true')
  }
  if (v.SVC_APP_DATABASE_MIN_CONNS > v.SVC_APP_DATABASE_MAX_CONNS) {
    throw new ConfigError('SVC_APP_DATABASE_MIN_CONNS', String(v.SVC_APP_DATABASE_MIN_CONNS), `must not exceed SVC_APP_DATABASE_MAX_CONNS (${v.SVC_APP_DATABASE_MAX_CONNS})`)
  }
  const workers = resolveWorkers(v.SVC_APP_WORKERS, env.SVC_APP_WORKERS, currentHost())
  if (workers > 1 && v.SVC_APP_DATABASE_URL.startsWith('pglite://')) {
    // One process owns a PGlite directory (a second is refused at its lock).
    const auto = v.SVC_APP_WORKERS === 'auto' ? ` (auto is ${workers} here)` : ''
    throw new ConfigError('SVC_APP_WORKERS', env.SVC_APP_WORKERS!.trim(), `must be 1 with a pglite:// SVC_APP_DATABASE_URL${auto}: one process owns a PGlite database; use PostgreSQL for more workers`)
  }
  return Object.freeze({
    ...resolveLogging(v.SVC_APP_APP_ENV, v['SVC_APP_LOG_LEVEL'], v['SVC_APP_LOG_FORMAT']),
    databaseUrl: v.SVC_APP_DATABASE_URL,
    apiKey: v.SVC_APP_API_KEY,
    port: v.SVC_APP_PORT,
    rateLimitPerMinute: v.SVC_APP_RATE_LIMIT,
    maxBodyBytes: v.SVC_APP_MAX_BODY_SIZE,
    corsOrigins: Object.freeze(v.SVC_APP_CORS_ORIGINS),
    trustedProxies: v.SVC_APP_TRUSTED_PROXIES,
    allowedHosts: v.SVC_APP_ALLOWED_HOSTS,
    rateLimitExempt: v.SVC_APP_RATE_LIMIT_EXEMPT,
    retentionMs: v.SVC_APP_RETENTION,
    retention: (env.SVC_APP_RETENTION ?? '').trim() || DEFAULT_RETENTION,
    cleanupIntervalMs: v.SVC_APP_CLEANUP_INTERVAL,
    maxClockSkewMs: v.SVC_APP_MAX_CLOCK_SKEW,
    maxClockSkew: (env.SVC_APP_MAX_CLOCK_SKEW ?? '').trim() || DEFAULT_MAX_CLOCK_SKEW,
    readTimeoutMs: v.SVC_APP_READ_TIMEOUT,
    writeTimeoutMs: v.SVC_APP_WRITE_TIMEOUT,
    idleTimeoutMs: v.SVC_APP_IDLE_TIMEOUT,
    metricsEnabled: v.SVC_APP_METRICS_ENABLED,
    hstsMaxAgeSeconds: v.SVC_APP_HSTS_ENABLED ? Math.floor(v.SVC_APP_HSTS_MAX_AGE / 1000) : undefined,
    database: Object.freeze({
      maxConns: v.SVC_APP_DATABASE_MAX_CONNS,
      minConns: v.SVC_APP_DATABASE_MIN_CONNS,
      maxConnIdleMs: v.SVC_APP_DATABASE_MAX_CONN_IDLE,
      maxConnLifeMs: v.SVC_APP_DATABASE_MAX_CONN_LIFE,
      durableCaptures: v.SVC_APP_DATABASE_DURABLE_CAPTURES,
    }),
    workers,
  })
}
