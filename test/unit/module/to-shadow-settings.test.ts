import { describe, expect, test } from 'bun:test'
import { loadProxyConfig } from '../../../src/config/proxy-config.ts'
import { DEFAULT_DIFF_CONFIG } from '../../../src/diff/index.ts'
import { parseModuleConfig, validateModuleConfig } from '../../../src/module/module-config.ts'
import { MODULE_GATE_LABEL, toShadowSettings } from '../../../src/module/to-shadow-settings.ts'
import { DEFAULT_HTTP_CLIENT, type ShadowSettings } from '../../../src/proxy/index.ts'

const URLS = { live: 'http://127.0.0.1:3000', shadow: 'http://127.0.0.1:3001' }

/** The settings without the compiled rules, networks and templates, which compare by their text. */
function comparable(settings: ShadowSettings) {
  const { shadowRules, trustedProxies, endpoints, ...rest } = settings
  return {
    ...rest,
    rules: shadowRules.rules.map((rule) => `${rule.source}: ${rule.text}`),
    trustedProxies: trustedProxies?.cidrs.map(({ network, prefix }) => `${network.bytes.join('.')}/${prefix}`),
    endpoints: endpoints?.templates.map((template) => template.source),
  }
}

describe('toShadowSettings', () => {
  test('maps the default configuration onto the core’s settings, standalone (gate="")', () => {
    const settings = toShadowSettings(validateModuleConfig(URLS))
    expect(comparable(settings)).toEqual({
      liveUrl: 'http://127.0.0.1:3000',
      shadowUrl: 'http://127.0.0.1:3001',
      gate: '',
      liveTimeoutMs: 5000,
      shadowTimeoutMs: 10_000,
      maxBodyBytes: 0,
      samplingRate: 1,
      noiseSampleRate: 0,
      noiseMaxPerSecond: 5,
      maxConcurrentCallbacks: 200,
      maxBytesInFlight: 268_435_456,
      httpClient: { ...DEFAULT_HTTP_CLIENT },
      redactedFields: [],
      diff: { ...DEFAULT_DIFF_CONFIG },
      rules: ['base: allow GET:*', 'base: allow HEAD:*', 'base: allow OPTIONS:*', 'base: deny *:*'],
      trustedProxies: [],
      endpoints: [],
    })
    expect(MODULE_GATE_LABEL).toBe('')
  })

  test('maps every directive to its setting', () => {
    const config = parseModuleConfig(`
      svc_gate {
        live http://live.internal:8080/base/
        shadow http://shadow.internal:8080/base
        sampling_rate 0.25
        live_timeout 1500ms
        shadow_timeout 1m
        max_body_size 4096
        shadow_rules "allow POST:/api/search, deny GET:/admin/*"
        max_concurrent_callbacks 0
        http_client {
          max_idle_conns 64
          max_idle_conns_per_host 32
          max_conns_per_host 32
          idle_conn_timeout 0
        }
        diff_ignored_fields body.**.updated_at headers.X-Trace
        diff_included_fields body
        diff_float_tolerance 0.001
        diff_sort_arrays on
        redacted_fields body.user.email
        trusted_proxies 10.0.0.0/8 "192.0.2.7, ::1"
        endpoints "/v2/products/{sku}/price" "/static/*"
        max_bytes_in_flight 1000000
        noise_sample_rate 0.05
        noise_max_per_second 2
      }`)
    expect(comparable(toShadowSettings(config))).toEqual({
      // No trailing slash: the core appends the request path to it.
      liveUrl: 'http://live.internal:8080/base',
      shadowUrl: 'http://shadow.internal:8080/base',
      gate: '',
      liveTimeoutMs: 1500,
      shadowTimeoutMs: 60_000,
      maxBodyBytes: 4096,
      samplingRate: 0.25,
      noiseSampleRate: 0.05,
      noiseMaxPerSecond: 2,
      maxConcurrentCallbacks: 0,
      maxBytesInFlight: 1_000_000,
      httpClient: {
        maxIdleConns: 64,
        maxIdleConnsPerHost: 32,
        maxConnsPerHost: 32,
        idleConnTimeoutMs: 0,
      },
      redactedFields: ['body.user.email'],
      diff: {
        ignored_fields: ['body.**.updated_at', 'headers.X-Trace'],
        included_fields: ['body'],
        float_tolerance: 0.001,
        sort_arrays: true,
      },
      rules: [
        'user: allow POST:/api/search',
        'user: deny GET:/admin/*',
        'base: allow GET:*',
        'base: allow HEAD:*',
        'base: allow OPTIONS:*',
        'base: deny *:*',
      ],
      trustedProxies: ['10.0.0.0/8', '192.0.2.7/32', `${[...Array(15).fill(0), 1].join('.')}/128`],
      endpoints: ['/v2/products/{sku}/price', '/static/*'],
    })
  })

  test('user rules come first and override the base rules; the base rules cannot be dropped', () => {
    const { shadowRules } = toShadowSettings(
      validateModuleConfig({ ...URLS, shadowRules: 'allow POST:/api/search' }),
    )
    expect(shadowRules.shouldShadow('POST', '/api/search?q=1').shadow).toBe(true)
    expect(shadowRules.shouldShadow('POST', '/api/orders').shadow).toBe(false)
    expect(shadowRules.shouldShadow('GET', '/api/orders').shadow).toBe(true)
  })

  test('gives the core the same settings as the standalone proxy given the same values', () => {
    const module = toShadowSettings(
      validateModuleConfig({
        ...URLS,
        samplingRate: 0.5,
        liveTimeout: '2s',
        shadowTimeout: '3s',
        maxBodySize: 1024,
        shadowRules: 'allow POST:/api/search',
        maxConcurrentCallbacks: 7,
        httpClient: {
          maxIdleConns: 1,
          maxIdleConnsPerHost: 2,
          maxConnsPerHost: 3,
          idleConnTimeout: '4s',
        },
        diffIgnoredFields: ['body.a', 'body.b'],
        diffIncludedFields: 'body',
        diffFloatTolerance: 0.5,
        diffSortArrays: true,
        redactedFields: ['headers.X-Token'],
        trustedProxies: '10.0.0.0/8, ::1',
        endpoints: ['/v2/products/{sku}/price', '/static/*'],
        maxBytesInFlight: 5_000_000,
        noiseSampleRate: 0.2,
        noiseMaxPerSecond: 3,
      }),
    )
    const proxy = loadProxyConfig({
      SVC_APP_LIVE_URL: URLS.live,
      SVC_APP_SHADOW_URL: URLS.shadow,
      SVC_APP_SAMPLING_RATE: '0.5',
      SVC_APP_LIVE_TIMEOUT: '2s',
      SVC_APP_SHADOW_TIMEOUT: '3s',
      SVC_APP_MAX_BODY_SIZE: '1024',
      SVC_APP_SHADOW_RULES: 'allow POST:/api/search',
      SVC_APP_MAX_CONCURRENT_CALLBACKS: '7',
      SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS: '1',
      SVC_APP_HTTP_CLIENT_MAX_IDLE_CONNS_PER_HOST: '2',
      SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST: '3',
      SVC_APP_HTTP_CLIENT_IDLE_CONN_TIMEOUT: '4s',
      SVC_APP_DIFF_IGNORED_FIELDS: 'body.a,body.b',
      SVC_APP_DIFF_INCLUDED_FIELDS: 'body',
      SVC_APP_DIFF_FLOAT_TOLERANCE: '0.5',
      SVC_APP_DIFF_SORT_ARRAYS: 'true',
      SVC_APP_REDACTED_FIELDS: 'headers.X-Token',
      SVC_APP_TRUSTED_PROXIES: '10.0.0.0/8, ::1',
      SVC_APP_ENDPOINTS: '/v2/products/{sku}/price, /static/*',
      SVC_APP_MAX_BYTES_IN_FLIGHT: '5000000',
      SVC_APP_NOISE_SAMPLE_RATE: '0.2',
      SVC_APP_NOISE_MAX_PER_SECOND: '3',
    })
    if (proxy.mode.kind !== 'standalone') throw new Error('expected standalone mode')
    // As start-proxy.ts builds them in standalone mode.
    const standalone: ShadowSettings = {
      ...proxy.shadow,
      liveUrl: proxy.mode.liveUrl,
      shadowUrl: proxy.mode.shadowUrl,
      gate: '',
      diff: proxy.mode.diff,
      endpoints: proxy.mode.endpoints,
    }
    expect(comparable(module)).toEqual(comparable(standalone))
  })

  test('returns frozen settings, and never shares the config’s arrays with the diff', () => {
    const config = validateModuleConfig({ ...URLS, diffIgnoredFields: ['body.a'] })
    const settings = toShadowSettings(config)
    expect(Object.isFrozen(settings)).toBe(true)
    expect(Object.isFrozen(settings.diff)).toBe(true)
    expect(settings.diff.ignored_fields).toEqual(['body.a'])
    expect(settings.diff.ignored_fields).not.toBe(config.diffIgnoredFields)
  })
})
