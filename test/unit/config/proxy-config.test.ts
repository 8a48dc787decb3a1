import { describe, expect, test } from 'bun:test'
import { ConfigError } from '../../../src/config/config-error.ts'
import { loadProxyConfig } from '../../../src/config/proxy-config.ts'
import { EndpointTemplates } from '../../../src/insights/index.ts'

const STANDALONE = { SVC_APP_LIVE_URL: 'http://127.0.0.1:3000', SVC_APP_SHADOW_URL: 'http://127.0.0.1:3001' }
const GATE_ID = '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40'
const API_KEY = 'proxy-key-0123456789'
const API = { SVC_APP_API_URL: 'http://127.0.0.1:8090', SVC_APP_GATE_ID: GATE_ID, SVC_APP_API_KEY: API_KEY }

function errorOf(env: Record<string, string>): ConfigError {
  try {
    loadProxyConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error('expected a ConfigError')
}

describe('loadProxyConfig: the common defaults', () => {
  test('applies every default', () => {
    const config = loadProxyConfig(STANDALONE)
    expect(config).toMatchObject({
      // Our own HTTP/1.1 on Bun's TCP sockets (docs/proxy.md "The raw server").
      server: 'raw',
      port: 8080,
      adminPort: 8081,
      readTimeoutMs: 30_000,
      writeTimeoutMs: 60_000,
      idleTimeoutMs: 120_000,
      metricsEnabled: true,
      appEnv: 'development',
      logLevel: 'debug',
      logFormat: 'text',
      shadow: {
        liveTimeoutMs: 5000,
        shadowTimeoutMs: 10_000,
        maxBodyBytes: 10_485_760,
        samplingRate: 1,
        noiseSampleRate: 0,
        noiseMaxPerSecond: 5,
        maxConcurrentCallbacks: 200,
        maxBytesInFlight: 268_435_456,
        httpClient: { maxIdleConns: 100, maxIdleConnsPerHost: 10, maxConnsPerHost: 100, idleConnTimeoutMs: 90_000 },
        redactedFields: [],
      },
      ignoredVariables: [],
    })
    expect(Object.isFrozen(config)).toBe(true)
    expect(Object.isFrozen(config.shadow)).toBe(true)
  })

  test('trusts no proxy by default; SVC_APP_TRUSTED_PROXIES takes IPs and CIDRs as the API does', () => {
    expect(loadProxyConfig(STANDALONE).shadow.trustedProxies?.size).toBe(0)
    const { trustedProxies } = loadProxyConfig({ ...STANDALONE, SVC_APP_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7, ::1' }).shadow
    expect(trustedProxies?.has('10.1.2.3')).toBe(true)
    expect(trustedProxies?.has('192.0.2.7')).toBe(true)
    expect(trustedProxies?.has('::1')).toBe(true)
    expect(trustedProxies?.has('192.0.2.8')).toBe(false)
  })

  test('the shadow client and the head timeout only when set (the pool and the handler apply the defaults)', () => {
    const defaults = loadProxyConfig(STANDALONE).shadow
    expect(defaults.httpClient.shadowClient).toBeUndefined()
    expect(defaults.shadowHeadTimeoutMs).toBeUndefined()
    const set = loadProxyConfig({ ...STANDALONE, SVC_APP_SHADOW_CLIENT: 'fetch', SVC_APP_SHADOW_HEAD_TIMEOUT: '2s' }).shadow
    expect(set.httpClient.shadowClient).toBe('fetch')
    expect(set.shadowHeadTimeoutMs).toBe(2000)
  })

  test('compiles the shadow rules once, base rules appended', () => {
    const config = loadProxyConfig({ ...STANDALONE, SVC_APP_SHADOW_RULES: 'allow POST:/api/search' })
    expect(config.shadow.shadowRules.shouldShadow('POST', '/api/search').shadow).toBe(true)
    expect(config.shadow.shadowRules.shouldShadow('POST', '/api/orders').shadow).toBe(false)
    expect(config.shadow.shadowRules.rules.map((r) => r.text)).toEqual([
      'allow POST:/api/search',
      'allow GET:*',
      'allow HEAD:*',
      'allow OPTIONS:*',
      'deny *:*',
    ])
  })

  test('0 is allowed where it has a documented meaning', () => {
    const config = loadProxyConfig({
      ...STANDALONE,
      SVC_APP_MAX_BODY_SIZE: '0',
      SVC_APP_MAX_CONCURRENT_CALLBACKS: '0',
      SVC_APP_SAMPLING_RATE: '0',
      SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS: '0',
      SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS_PER_HOST: '0',
      SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST: '0',
      SVC_APP_HTTP_CLIENT_IDLE_CONN_TIMEOUT: '0',
    })
    expect(config.shadow).toMatchObject({
      maxBodyBytes: 0,
      maxConcurrentCallbacks: 0,
      samplingRate: 0,
      httpClient: { maxIdleConns: 0, maxIdleConnsPerHost: 0, maxConnsPerHost: 0, idleConnTimeoutMs: 0 },
    })
  })
})

describe('standalone mode', () => {
  test('takes the URLs (trailing slash trimmed) and the diff options', () => {
    const config = loadProxyConfig({
      SVC_APP_LIVE_URL: 'http://live.internal:3000/',
      SVC_APP_SHADOW_URL: 'http://shadow.internal:3000',
      SVC_APP_DIFF_IGNORED_FIELDS: 'body.**.updated_at, headers.X-Trace',
      SVC_APP_DIFF_INCLUDED_FIELDS: 'body.items',
      SVC_APP_DIFF_FLOAT_TOLERANCE: '0.001',
      SVC_APP_DIFF_SORT_ARRAYS: 'true',
      SVC_APP_REDACTED_FIELDS: 'body.user.email',
    })
    expect(config.mode).toEqual({
      kind: 'standalone',
      liveUrl: 'http://live.internal:3000',
      shadowUrl: 'http://shadow.internal:3000',
      diff: {
        ignored_fields: ['body.**.updated_at', 'headers.X-Trace'],
        included_fields: ['body.items'],
        float_tolerance: 0.001,
        sort_arrays: true,
      },
      endpoints: EndpointTemplates.NONE,
    })
    expect(config.shadow.redactedFields).toEqual(['body.user.email'])
  })

  test('SVC_APP_ENDPOINTS: explicit templates in the order given, the automatic rule for the rest', () => {
    const config = loadProxyConfig({ ...STANDALONE, SVC_APP_ENDPOINTS: ' /v2/products/{sku}/price, /static/* ,' })
    if (config.mode.kind !== 'standalone') throw new Error('expected standalone mode')
    const { endpoints } = config.mode
    expect(endpoints.templates.map((template) => template.source)).toEqual(['/v2/products/{sku}/price', '/static/*'])
    expect(endpoints.templateOf('/v2/products/abc/price')).toBe('/v2/products/{sku}/price')
    expect(endpoints.templateOf('/static/img/logo.png')).toBe('/static/*')
    expect(endpoints.templateOf('/v2/orders/15028')).toBe('/v2/orders/{id}')
  })

  test('lists API-mode variables that are set as ignored', () => {
    expect(loadProxyConfig({ ...STANDALONE, SVC_APP_MAX_RETRIES: '5' }).ignoredVariables).toEqual(['SVC_APP_MAX_RETRIES'])
  })

  test('SVC_APP_API_KEY alone does not choose API mode: one shell can run the API and a standalone proxy', () => {
    const config = loadProxyConfig({ ...STANDALONE, SVC_APP_API_KEY: 'a-key-of-the-api-0123' })
    expect(config.mode.kind).toBe('standalone')
    expect(config.ignoredVariables).toEqual(['SVC_APP_API_KEY'])
    expect(errorOf({ SVC_APP_API_KEY: 'a-key-of-the-api-0123' }).message).toStartWith('SVC_APP_API_URL or SVC_APP_LIVE_URL: is required')
  })

  test('refuses a shadow URL equal to the live URL', () => {
    expect(errorOf({ SVC_APP_LIVE_URL: 'http://a:1', SVC_APP_SHADOW_URL: 'http://a:1/' }).message).toBe(
      'SVC_APP_SHADOW_URL: "http://a:1/" must differ from SVC_APP_LIVE_URL',
    )
    // The line never carries a password.
    expect(errorOf({ SVC_APP_LIVE_URL: 'http://u:SEKRIT@a:1', SVC_APP_SHADOW_URL: 'http://u:SEKRIT@a:1/' }).message).toBe(
      'SVC_APP_SHADOW_URL: "http://u:***@a:1/" must differ from SVC_APP_LIVE_URL',
    )
  })
})

describe('API mode', () => {
  test('takes the API, gate and breaker settings with their defaults', () => {
    const config = loadProxyConfig(API)
    // toEqual looks at own enumerable properties: the key is checked apart.
    expect(config.mode as unknown).toEqual({
      kind: 'api',
      apiUrl: 'http://127.0.0.1:8090',
      gateId: GATE_ID,
      apiTimeoutMs: 30_000,
      maxRetries: 3,
      retryDelayMs: 1000,
      breaker: { failureThreshold: 5, delayMs: 60_000, successThreshold: 2 },
    })
    expect(config.mode.kind === 'api' && config.mode.apiKey).toBe(API_KEY)
  })

  test('the API key is not enumerable: printing the configuration never shows it', () => {
    const config = loadProxyConfig(API)
    expect(JSON.stringify(config)).not.toContain(API_KEY)
    expect(Bun.inspect(config)).not.toContain(API_KEY)
  })

  test('lists standalone-only variables that are set as ignored', () => {
    expect(loadProxyConfig({ ...API, SVC_APP_DIFF_SORT_ARRAYS: 'true' }).ignoredVariables).toEqual([
      'SVC_APP_DIFF_SORT_ARRAYS',
    ])
  })

  test('SVC_APP_ENDPOINTS is ignored: the gate\'s endpoints apply', () => {
    expect(loadProxyConfig({ ...API, SVC_APP_ENDPOINTS: '/v2/products/{sku}' }).ignoredVariables).toEqual([
      'SVC_APP_ENDPOINTS',
    ])
  })
})

describe('exactly one mode', () => {
  test.each([
    [{}, 'SVC_APP_API_URL or SVC_APP_LIVE_URL: is required; configure exactly one proxy mode: API mode (SVC_APP_API_URL, SVC_APP_GATE_ID, SVC_APP_API_KEY) or standalone mode (SVC_APP_LIVE_URL, SVC_APP_SHADOW_URL)'],
    [{ ...STANDALONE, SVC_APP_GATE_ID: GATE_ID }, 'SVC_APP_LIVE_URL: is set together with SVC_APP_GATE_ID; configure exactly one proxy mode'],
    [{ SVC_APP_SHADOW_URL: 'http://a:1' }, 'SVC_APP_LIVE_URL: is required in standalone mode (SVC_APP_SHADOW_URL is set)'],
    [{ SVC_APP_API_URL: 'http://a:1', SVC_APP_GATE_ID: GATE_ID }, 'SVC_APP_API_KEY: is required in API mode (SVC_APP_API_URL is set)'],
  ] as Array<[Record<string, string>, string]>)('%o', (env, line) => {
    expect(errorOf(env).message).toStartWith(line)
  })
})

describe('one clear line per invalid value', () => {
  test.each([
    ['SVC_APP_PORT', '70000', 'SVC_APP_PORT: "70000" must be an integer from 1 to 65535'],
    ['SVC_APP_LIVE_TIMEOUT', '0s', 'SVC_APP_LIVE_TIMEOUT: "0s" must be a positive duration'],
    ['SVC_APP_SHADOW_TIMEOUT', 'soon', 'SVC_APP_SHADOW_TIMEOUT: "soon" must be a duration such as "300ms", "1.5h" or "2h45m"'],
    ['SVC_APP_MAX_BODY_SIZE', '-1', 'SVC_APP_MAX_BODY_SIZE: "-1" must be an integer of at least 0'],
    ['SVC_APP_SAMPLING_RATE', '1.01', 'SVC_APP_SAMPLING_RATE: "1.01" must be a number from 0 to 1'],
    ['SVC_APP_SAMPLING_RATE', '-0.1', 'SVC_APP_SAMPLING_RATE: "-0.1" must be a number from 0 to 1'],
    ['SVC_APP_NOISE_SAMPLE_RATE', '1.5', 'SVC_APP_NOISE_SAMPLE_RATE: "1.5" must be a number from 0 to 1'],
    ['SVC_APP_NOISE_MAX_PER_SECOND', '0', 'SVC_APP_NOISE_MAX_PER_SECOND: "0" must be an integer from 1 to 10000'],
    ['SVC_APP_NOISE_MAX_PER_SECOND', '10001', 'SVC_APP_NOISE_MAX_PER_SECOND: "10001" must be an integer from 1 to 10000'],
    ['SVC_APP_NOISE_MAX_PER_SECOND', '2.5', 'SVC_APP_NOISE_MAX_PER_SECOND: "2.5" must be an integer from 1 to 10000'],
    ['SVC_APP_MAX_CONCURRENT_CALLBACKS', 'many', 'SVC_APP_MAX_CONCURRENT_CALLBACKS: "many" must be an integer of at least 0'],
    ['SVC_APP_MAX_BYTES_IN_FLIGHT', '0', 'SVC_APP_MAX_BYTES_IN_FLIGHT: "0" must be an integer of at least 1'],
    ['SVC_APP_METRICS_ENABLED', 'yes', 'SVC_APP_METRICS_ENABLED: "yes" must be true or false'],
    ['SVC_APP_SHADOW_CLIENT', 'curl', 'SVC_APP_SHADOW_CLIENT: "curl" must be one of http1, fetch'],
    ['SVC_APP_SHADOW_HEAD_TIMEOUT', '0s', 'SVC_APP_SHADOW_HEAD_TIMEOUT: "0s" must be a positive duration'],
    ['SVC_APP_HTTP_CLIENT_IDLE_CONN_TIMEOUT', '-1s', 'SVC_APP_HTTP_CLIENT_IDLE_CONN_TIMEOUT: "-1s" must be a duration of 0 or more'],
    ['SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST', '1.5', 'SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST: "1.5" must be an integer of at least 0'],
    ['SVC_APP_DIFF_FLOAT_TOLERANCE', '-0.5', 'SVC_APP_DIFF_FLOAT_TOLERANCE: "-0.5" must be a number of at least 0'],
    ['SVC_APP_APP_ENV', 'staging', 'SVC_APP_APP_ENV: "staging" must be one of development, production'],
    ['SVC_APP_LOG_LEVEL', 'trace', 'SVC_APP_LOG_LEVEL: "trace" must be one of debug, info, warn, error'],
    ['SVC_APP_LIVE_URL', 'ftp://x', 'SVC_APP_LIVE_URL: "ftp://x" must be an http:// or https:// URL'],
    ['SVC_APP_LIVE_URL', 'http://a:1/?x=1', 'SVC_APP_LIVE_URL: "http://a:1/?x=1" must be an http:// or https:// URL without a query or fragment'],
    ['SVC_APP_SHADOW_URL', 'http://b:1/#top', 'SVC_APP_SHADOW_URL: "http://b:1/#top" must be an http:// or https:// URL without a query or fragment'],
    ['SVC_APP_SAMPLING_RATE', '0x1', 'SVC_APP_SAMPLING_RATE: "0x1" must be a number from 0 to 1'],
    ['SVC_APP_DIFF_FLOAT_TOLERANCE', 'Infinity', 'SVC_APP_DIFF_FLOAT_TOLERANCE: "Infinity" must be a number of at least 0'],
    ['SVC_APP_LIVE_TIMEOUT', '600h', 'SVC_APP_LIVE_TIMEOUT: "600h" must be a duration of at most 596h (the longest a timer can wait)'],
    ['SVC_APP_CB_DELAY', '1000h', 'SVC_APP_CB_DELAY: "1000h" must be a duration of at most 596h'],
    ['SVC_APP_HTTP_CLIENT_IDLE_CONN_TIMEOUT', '9999h', 'SVC_APP_HTTP_CLIENT_IDLE_CONN_TIMEOUT: "9999h" must be a duration of at most 596h'],
    ['SVC_APP_REDACTED_FIELDS', 'password', 'SVC_APP_REDACTED_FIELDS: "password" must be a comma-separated list of field paths'],
    ['SVC_APP_DIFF_IGNORED_FIELDS', 'body.a,,params.b', 'SVC_APP_DIFF_IGNORED_FIELDS: "body.a,,params.b" must be a comma-separated list of field paths'],
    ['SVC_APP_TRUSTED_PROXIES', '10.0.0.0/33', 'SVC_APP_TRUSTED_PROXIES: "10.0.0.0/33" must be a list of IP addresses or CIDR networks ("10.0.0.0/33" is neither)'],
    ['SVC_APP_TRUSTED_PROXIES', '10.0.0.1, lb.internal', 'SVC_APP_TRUSTED_PROXIES: "10.0.0.1, lb.internal" must be a list of IP addresses or CIDR networks ("lb.internal" is neither)'],
  ])('%s=%s', (variable, value, line) => {
    expect(errorOf({ ...STANDALONE, [variable]: value }).message).toStartWith(line)
  })

  test.each([
    [
      '/v2/products/{sku}, /v2/{id}.json',
      'SVC_APP_ENDPOINTS: "/v2/products/{sku}, /v2/{id}.json" must be a comma-separated list of path templates such as /v2/products/{sku}/price (invalid endpoint template "/v2/{id}.json" (at index 1): a "{name}" must fill a whole segment)',
    ],
    [
      'v2/products',
      'SVC_APP_ENDPOINTS: "v2/products" must be a comma-separated list of path templates such as /v2/products/{sku}/price (invalid endpoint template "v2/products" (at index 0): it must start with "/")',
    ],
    [
      '/a, /b, /a',
      'SVC_APP_ENDPOINTS: "/a, /b, /a" must be a comma-separated list of path templates such as /v2/products/{sku}/price (invalid endpoint template "/a" (at index 2): it is listed twice)',
    ],
  ])('SVC_APP_ENDPOINTS=%s names the template at fault', (value, line) => {
    expect(errorOf({ ...STANDALONE, SVC_APP_ENDPOINTS: value }).message).toBe(line)
  })

  test('SVC_APP_ENDPOINTS holds at most 500 templates', () => {
    const value = Array.from({ length: 501 }, (_, i) => `/t${i}`).join(',')
    expect(errorOf({ ...STANDALONE, SVC_APP_ENDPOINTS: value }).message).toEndWith(
      'must be a comma-separated list of path templates such as /v2/products/{sku}/price (invalid endpoint templates: at most 500 templates are allowed, got 501)',
    )
  })

  test('a malformed shadow rule names the rule and its position', () => {
    expect(errorOf({ ...STANDALONE, SVC_APP_SHADOW_RULES: 'allow GET:/a, deny GET', }).message).toBe(
      'SVC_APP_SHADOW_RULES: "allow GET:/a, deny GET" rule 2 "deny GET" must be "ACTION METHOD:path"',
    )
    expect(errorOf({ ...STANDALONE, SVC_APP_SHADOW_RULES: 'allow GET:api' }).message).toBe(
      'SVC_APP_SHADOW_RULES: "allow GET:api" rule 1 "allow GET:api" has path "api"; expected a pattern that starts with "/" or "*"',
    )
  })

  test('the admin port must differ from the port', () => {
    expect(errorOf({ ...STANDALONE, SVC_APP_ADMIN_PORT: '8080' }).message).toBe('SVC_APP_ADMIN_PORT: "8080" must differ from SVC_APP_PORT')
  })

  test.each([
    ['SVC_APP_PORT', '0'],
    ['SVC_APP_ADMIN_PORT', '0'],
    ['SVC_APP_PORT', '65536'],
  ])('%s=%s is not a port to listen on', (variable, value) => {
    expect(errorOf({ ...STANDALONE, [variable]: value }).message).toBe(`${variable}: "${value}" must be an integer from 1 to 65535`)
  })

  test('the shadow head timeout must be at most the shadow timeout', () => {
    expect(errorOf({ ...STANDALONE, SVC_APP_SHADOW_HEAD_TIMEOUT: '11s' }).message).toBe(
      'SVC_APP_SHADOW_HEAD_TIMEOUT: "11s" must be at most SVC_APP_SHADOW_TIMEOUT (10s)',
    )
  })

  test('the write timeout must be at least the live timeout', () => {
    expect(errorOf({ ...STANDALONE, SVC_APP_LIVE_TIMEOUT: '90s' }).message).toBe(
      'SVC_APP_WRITE_TIMEOUT: "60s" must be at least SVC_APP_LIVE_TIMEOUT (90s)',
    )
  })

  test('the API key is never echoed', () => {
    const error = errorOf({ ...API, SVC_APP_API_KEY: 'short-secret' })
    expect(error.message).toBe('SVC_APP_API_KEY: the value (12 characters, not shown) must be at least 16 characters')
  })

  test('a gate id that is not a UUID', () => {
    expect(errorOf({ ...API, SVC_APP_GATE_ID: 'gate-1' }).message).toStartWith('SVC_APP_GATE_ID: "gate-1" must be a UUID')
  })
})
