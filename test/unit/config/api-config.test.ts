import { describe, expect, test } from 'bun:test'
import { loadApiConfig } from '../../../src/config/api-config.ts'
import { ConfigError } from '../../../src/config/config-error.ts'

const BASE = {
  SVC_APP_DATABASE_URL: 'postgres://postgres:hunter2@127.0.0.1:5432/svc',
  SVC_APP_API_KEY: 'a-key-of-sixteen-chars',
}

function errorOf(env: Record<string, string>): ConfigError {
  try {
    loadApiConfig({ ...BASE, ...env })
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error('expected a ConfigError')
}

describe('loadApiConfig', () => {
  test('applies every documented default', () => {
    const config = loadApiConfig(BASE)
    expect(config).toMatchObject({
      port: 8090,
      rateLimitPerMinute: 1000,
      maxBodyBytes: 10485760,
      corsOrigins: [],
      retentionMs: 720 * 3_600_000,
      retention: '720h',
      cleanupIntervalMs: 3_600_000,
      readTimeoutMs: 15_000,
      writeTimeoutMs: 30_000,
      idleTimeoutMs: 60_000,
      metricsEnabled: true,
      hstsMaxAgeSeconds: undefined,
      appEnv: 'development',
      logLevel: 'debug',
      logFormat: 'text',
      database: { maxConns: 25, minConns: 5, maxConnIdleMs: 300_000, maxConnLifeMs: 3_600_000, durableCaptures: false },
    })
    expect(config.trustedProxies.size).toBe(0)
    expect(config.rateLimitExempt.size).toBe(0)
    expect(Object.isFrozen(config)).toBe(true)
  })

  test('production defaults the log to info and json', () => {
    expect(loadApiConfig({ ...BASE, SVC_APP_APP_ENV: 'production' })).toMatchObject({ logLevel: 'info', logFormat: 'json' })
  })

  test('HSTS max-age is given in seconds: 8760h is 31536000', () => {
    expect(loadApiConfig({ ...BASE, SVC_APP_HSTS_ENABLED: 'true' }).hstsMaxAgeSeconds).toBe(31_536_000)
  })

  test('retention is an age, not a timer: two years is fine', () => {
    expect(loadApiConfig({ ...BASE, SVC_APP_RETENTION: '17520h' }).retentionMs).toBe(17_520 * 3_600_000)
  })

  test('an empty value counts as unset', () => {
    expect(loadApiConfig({ ...BASE, SVC_APP_PORT: '' }).port).toBe(8090)
  })

  test('a PostgreSQL URL as postgres.js reads it: a host list, a path it never decodes', () => {
    for (const url of ['postgres://u:p@h1:5432,h2:5433/db', 'postgres://u:p@h/db%zz', 'postgres://u:p@[::1]:5432/db']) {
      expect(loadApiConfig({ ...BASE, SVC_APP_DATABASE_URL: url }).databaseUrl).toBe(url)
    }
    expect(errorOf({ SVC_APP_DATABASE_URL: 'postgres://u:p@h1:5432,h2:x/db' }).message).toContain('ports from 1 to 65535')
  })

  test('parses lists of origins and trusted proxies', () => {
    const config = loadApiConfig({
      ...BASE,
      SVC_APP_CORS_ORIGINS: 'http://localhost:8070, https://hub.example.com',
      SVC_APP_TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1',
    })
    expect(config.corsOrigins).toEqual(['http://localhost:8070', 'https://hub.example.com'])
    // As a browser sends an Origin: a slash copied from the address bar is not part of it.
    expect(loadApiConfig({ ...BASE, SVC_APP_CORS_ORIGINS: 'https://a.example/, https://b.example' }).corsOrigins).toEqual(['https://a.example', 'https://b.example'])
    expect(config.trustedProxies.has('10.1.2.3')).toBe(true)
  })

  test('SVC_APP_ALLOWED_HOSTS: unset answers any host; set, only the hosts listed', () => {
    expect(loadApiConfig(BASE).allowedHosts).toBeUndefined()
    const allowed = loadApiConfig({ ...BASE, SVC_APP_ALLOWED_HOSTS: '127.0.0.1, localhost, *.example.com' }).allowedHosts!
    expect(['127.0.0.1:8090', 'LOCALHOST', 'api.example.com'].map((h) => allowed.allows(h))).toEqual([true, true, true])
    expect(allowed.allows('evil.test')).toBe(false)
  })

  test.each([
    [{ SVC_APP_DATABASE_URL: '' }, 'SVC_APP_DATABASE_URL: is required'],
    [{ SVC_APP_DATABASE_URL: 'mysql://x' }, 'SVC_APP_DATABASE_URL: "mysql://x" must be a postgres://, postgresql:// or pglite:// URL'],
    [{ SVC_APP_API_KEY: 'short' }, 'SVC_APP_API_KEY: the value (5 characters, not shown) must be at least 16 characters'],
    // From a file or a secret with its newline: every request would have been a 401.
    [{ SVC_APP_API_KEY: 'abcdefghijklmnop\n' }, 'SVC_APP_API_KEY: the value (17 characters, not shown) must be without spaces or line breaks at either end'],
    // postgres.js threw these at connect, with a stack that quoted the URL.
    [{ SVC_APP_DATABASE_URL: 'postgres://u:hunter2@127.0.0.1:notaport/db' }, 'SVC_APP_DATABASE_URL: "postgres://u:***@127.0.0.1:notaport/db" must be a postgres://, postgresql:// or pglite:// URL with ports from 1 to 65535 and well-formed escapes in its user and password'],
    [{ SVC_APP_DATABASE_URL: 'postgres://u:hunter2@127.0.0.1:99999/db' }, 'SVC_APP_DATABASE_URL: "postgres://u:***@127.0.0.1:99999/db" must be a postgres://, postgresql:// or pglite:// URL with ports from 1 to 65535 and well-formed escapes in its user and password'],
    [{ SVC_APP_DATABASE_URL: 'postgres://postgres:se%cret@127.0.0.1/db' }, 'SVC_APP_DATABASE_URL: "postgres://postgres:***@127.0.0.1/db" must be a postgres://, postgresql:// or pglite:// URL with ports from 1 to 65535 and well-formed escapes in its user and password'],
    [{ SVC_APP_RETENTION: '0h' }, 'SVC_APP_RETENTION: "0h" must be a positive duration'],
    [{ SVC_APP_CLEANUP_INTERVAL: '700h' }, 'SVC_APP_CLEANUP_INTERVAL: "700h" must be a duration of at most 596h (the longest a timer can wait)'],
    [{ SVC_APP_RETENTION: '-5h' }, 'SVC_APP_RETENTION: "-5h" must be a positive duration'],
    [{ SVC_APP_RETENTION: '30d' }, 'SVC_APP_RETENTION: "30d" must be a duration such as "300ms", "1.5h" or "2h45m"'],
    [{ SVC_APP_CORS_ORIGINS: '*' }, 'SVC_APP_CORS_ORIGINS: "*" must be a list of origins without the wildcard "*"'],
    [{ SVC_APP_CORS_ORIGINS: 'http://a.example,*' }, 'SVC_APP_CORS_ORIGINS: "http://a.example,*" must be a list of origins without the wildcard "*"'],
    [{ SVC_APP_TRUSTED_PROXIES: '10.0.0.0/33' }, 'SVC_APP_TRUSTED_PROXIES: "10.0.0.0/33" must be a list of IP addresses or CIDR networks ("10.0.0.0/33" is neither)'],
    [{ SVC_APP_RATE_LIMIT_EXEMPT: '10.0.0.5, proxy.internal' }, 'SVC_APP_RATE_LIMIT_EXEMPT: "10.0.0.5, proxy.internal" must be a list of IP addresses or CIDR networks ("proxy.internal" is neither)'],
    [{ SVC_APP_ALLOWED_HOSTS: 'localhost, api.example.com:8090' }, 'SVC_APP_ALLOWED_HOSTS: "localhost, api.example.com:8090" must be a list of host names or IP addresses without ports, optionally *.example.com for subdomains ("api.example.com:8090" is not one)'],
    [{ SVC_APP_READ_TIMEOUT: '20s', SVC_APP_WRITE_TIMEOUT: '10s' }, 'SVC_APP_WRITE_TIMEOUT: "10s" must be at least SVC_APP_READ_TIMEOUT (20s)'],
    [{ SVC_APP_IDLE_TIMEOUT: '10s' }, 'SVC_APP_IDLE_TIMEOUT: "10s" must be at least SVC_APP_WRITE_TIMEOUT (30s)'],
    [{ SVC_APP_HSTS_ENABLED: 'true', SVC_APP_HSTS_MAX_AGE: '0s' }, 'SVC_APP_HSTS_MAX_AGE: "0s" must be a positive duration when SVC_APP_HSTS_ENABLED is true'],
    [{ SVC_APP_APP_ENV: 'staging' }, 'SVC_APP_APP_ENV: "staging" must be one of development, production'],
    [{ SVC_APP_LOG_LEVEL: 'trace' }, 'SVC_APP_LOG_LEVEL: "trace" must be one of debug, info, warn, error'],
    [{ SVC_APP_LOG_FORMAT: 'xml' }, 'SVC_APP_LOG_FORMAT: "xml" must be one of text, json'],
    [{ SVC_APP_PORT: '70000' }, 'SVC_APP_PORT: "70000" must be an integer from 1 to 65535'],
    [{ SVC_APP_PORT: '0' }, 'SVC_APP_PORT: "0" must be an integer from 1 to 65535'],
    [{ SVC_APP_RATE_LIMIT: '0' }, 'SVC_APP_RATE_LIMIT: "0" must be an integer of at least 1'],
    [{ SVC_APP_METRICS_ENABLED: 'maybe' }, 'SVC_APP_METRICS_ENABLED: "maybe" must be true or false'],
    [{ SVC_APP_DATABASE_DURABLE_CAPTURES: 'yes' }, 'SVC_APP_DATABASE_DURABLE_CAPTURES: "yes" must be true or false'],
    [{ SVC_APP_DATABASE_MIN_CONNS: '30' }, 'SVC_APP_DATABASE_MIN_CONNS: "30" must not exceed SVC_APP_DATABASE_MAX_CONNS (25)'],
  ])('%p fails with one clear line', (env, line) => {
    expect(errorOf(env as Record<string, string>).message).toBe(line)
  })

  test('never echoes the password of the database URL', () => {
    const message = errorOf({ SVC_APP_DATABASE_URL: 'mysql://app:s3cret@db/x' }).message
    expect(message).not.toContain('s3cret')
    expect(message).toContain('mysql://app:***@db/x')
    // A malformed one too, whose password holds what a URL parser would take for a path.
    const odd = errorOf({ SVC_APP_DATABASE_URL: 'mysql://app:s3/cr@t@db/x' }).message
    expect(odd).not.toContain('s3/cr')
    expect(odd).toContain('mysql://app:***@db/x')
  })
})

describe('loadApiConfig: ages (retention, clock skew)', () => {
  test('SVC_APP_MAX_CLOCK_SKEW defaults to 24h and takes any positive age up to 100 years', () => {
    expect(loadApiConfig(BASE)).toMatchObject({ maxClockSkewMs: 24 * 3_600_000, maxClockSkew: '24h' })
    expect(loadApiConfig({ ...BASE, SVC_APP_MAX_CLOCK_SKEW: ' 90s ' })).toMatchObject({ maxClockSkewMs: 90_000, maxClockSkew: '90s' })
  })

  test.each([
    [{ SVC_APP_MAX_CLOCK_SKEW: '0s' }, 'SVC_APP_MAX_CLOCK_SKEW: "0s" must be a positive duration'],
    [{ SVC_APP_MAX_CLOCK_SKEW: 'soon' }, 'SVC_APP_MAX_CLOCK_SKEW: "soon" must be a duration such as "300ms", "1.5h" or "2h45m"'],
    [{ SVC_APP_RETENTION: '99999999999h' }, 'SVC_APP_RETENTION: "99999999999h" must be a duration of at most 876000h (100 years)'],
    [{ SVC_APP_MAX_CLOCK_SKEW: '876001h' }, 'SVC_APP_MAX_CLOCK_SKEW: "876001h" must be a duration of at most 876000h (100 years)'],
  ])('%p fails with one line', (env, message) => {
    expect(errorOf(env).message).toBe(message)
  })
})
