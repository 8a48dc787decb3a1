import { describe, expect, test } from 'bun:test'
import { BlockSyntaxError } from '../../../src/module/block-syntax-error.ts'
import { ModuleConfigError } from '../../../src/module/module-config-error.ts'
import {
  parseModuleConfig,
  resolveModuleConfig,
  validateModuleConfig,
  type SvcGateConfig,
  type SvcGateOptions,
} from '../../../src/module/module-config.ts'

const URLS = 'live http://127.0.0.1:3000\n  shadow http://127.0.0.1:3001'

/** A block with live and shadow set and `body` after them. */
function block(body = ''): string {
  return `svc_gate {\n  ${URLS}\n  ${body}\n}`
}

function configError(fn: () => unknown): ModuleConfigError {
  try {
    fn()
  } catch (error) {
    if (error instanceof ModuleConfigError) return error
    throw error
  }
  throw new Error('expected a ModuleConfigError')
}

// Every default (docs/reference/configuration.md "Module: the `svc_gate` block
// and options").
const DEFAULTS: SvcGateConfig = {
  live: 'http://127.0.0.1:3000',
  shadow: 'http://127.0.0.1:3001',
  samplingRate: 1,
  liveTimeoutMs: 5_000,
  shadowTimeoutMs: 10_000,
  maxBodySize: 0,
  shadowRules: '',
  maxConcurrentCallbacks: 200,
  httpClient: {
    maxIdleConns: 100,
    maxIdleConnsPerHost: 10,
    maxConnsPerHost: 100,
    idleConnTimeoutMs: 90_000,
  },
  diffIgnoredFields: [],
  diffIncludedFields: [],
  diffFloatTolerance: 0,
  diffSortArrays: false,
  redactedFields: [],
  trustedProxies: [],
  endpoints: [],
  // The proxy's SVC_APP_MAX_BYTES_IN_FLIGHT default, 256 MiB.
  maxBytesInFlight: 268_435_456,
  // The noise check (docs/proxy.md "Noise check"): off, and at most 5 repeats a
  // second.
  noiseSampleRate: 0,
  noiseMaxPerSecond: 5,
}

describe('parseModuleConfig', () => {
  test('applies every default when only live and shadow are set', () => {
    expect(parseModuleConfig(block())).toEqual(DEFAULTS)
  })

  test('reads every directive', () => {
    const text = `
      # every directive, none at its default
      svc_gate {
        live https://live.example:8443/base
        shadow 'http://shadow.internal'
        sampling_rate 0.25
        live_timeout 1500ms
        shadow_timeout 1m30s
        max_body_size 1048576
        shadow_rules "allow POST:/api/search, deny GET:/admin/*"
        max_concurrent_callbacks 0
        http_client {
          max_idle_conns 0
          max_idle_conns_per_host 0
          max_conns_per_host 32
          idle_conn_timeout 0
        }
        diff_ignored_fields body.**.updated_at, headers.X-Trace
        diff_included_fields body.items status
        diff_float_tolerance 0.001
        diff_sort_arrays on
        redacted_fields body.password "body.card number"
        trusted_proxies 10.0.0.0/8, 192.0.2.7
        trusted_proxies ::1
        endpoints "/v2/products/{sku}/price, /static/*"
        endpoints /health
        max_bytes_in_flight 1048576
        noise_sample_rate 0.1
        noise_max_per_second 20
      }`
    expect(parseModuleConfig(text)).toEqual({
      live: 'https://live.example:8443/base',
      shadow: 'http://shadow.internal',
      samplingRate: 0.25,
      liveTimeoutMs: 1_500,
      shadowTimeoutMs: 90_000,
      maxBodySize: 1_048_576,
      shadowRules: 'allow POST:/api/search, deny GET:/admin/*',
      maxConcurrentCallbacks: 0,
      httpClient: {
        maxIdleConns: 0,
        maxIdleConnsPerHost: 0,
        maxConnsPerHost: 32,
        idleConnTimeoutMs: 0,
      },
      diffIgnoredFields: ['body.**.updated_at', 'headers.X-Trace'],
      diffIncludedFields: ['body.items', 'status'],
      diffFloatTolerance: 0.001,
      diffSortArrays: true,
      redactedFields: ['body.password', 'body.card number'],
      trustedProxies: ['10.0.0.0/8', '192.0.2.7', '::1'],
      endpoints: ['/v2/products/{sku}/price', '/static/*', '/health'],
      maxBytesInFlight: 1_048_576,
      noiseSampleRate: 0.1,
      noiseMaxPerSecond: 20,
    })
  })

  test('returns a deeply frozen config', () => {
    const config = parseModuleConfig(block('diff_ignored_fields body.a'))
    expect(Object.isFrozen(config)).toBe(true)
    expect(Object.isFrozen(config.httpClient)).toBe(true)
    expect(Object.isFrozen(config.diffIgnoredFields)).toBe(true)
  })

  test('reads field lists from several values, commas, and repeated directives', () => {
    const config = parseModuleConfig(
      block(
        'diff_ignored_fields body.a,body.b body.c,\n  diff_ignored_fields "body.d, body.e" ,body.f',
      ),
    )
    expect(config.diffIgnoredFields).toEqual([
      'body.a',
      'body.b',
      'body.c',
      'body.d',
      'body.e',
      'body.f',
    ])
  })

  test('joins unquoted shadow rules with a space', () => {
    const config = parseModuleConfig(block('shadow_rules allow POST:/api/search,deny GET:/admin/*'))
    expect(config.shadowRules).toBe('allow POST:/api/search,deny GET:/admin/*')
  })

  test.each([
    ['0', 0],
    ['1', 1],
    ['1.0', 1],
    ['.5', 0.5],
    ['5e-1', 0.5],
    ['0.000001', 0.000001],
  ])('reads sampling_rate %p', (text, rate) => {
    expect(parseModuleConfig(block(`sampling_rate ${text}`)).samplingRate).toBe(rate)
  })

  test.each([
    ['on', true],
    ['off', false],
    ['true', true],
    ['false', false],
    ['ON', true],
    ['False', false],
  ])('reads diff_sort_arrays %p', (text, value) => {
    expect(parseModuleConfig(block(`diff_sort_arrays ${text}`)).diffSortArrays).toBe(value)
  })

  test.each([
    ['300ms', 300],
    ['1.5s', 1_500],
    ['2h45m', 9_900_000],
    ['1500us', 1.5],
  ])('reads the duration %p', (text, ms) => {
    expect(parseModuleConfig(block(`live_timeout ${text}`)).liveTimeoutMs).toBe(ms)
  })
})

describe('parseModuleConfig errors never quote a password', () => {
  test.each([
    ['live "http://u:SEKRIT@127.0.0.1:3000/?q=1"\n  shadow http://127.0.0.1:3001', 'found "http://u:***@127.0.0.1:3000/?q=1"'],
    ['live http://u:SEKRIT@127.0.0.1:3000\n  shadow http://u:SEKRIT@127.0.0.1:3000', 'found "http://u:***@127.0.0.1:3000"'],
  ])('%s', (urls, found) => {
    const error = configError(() => parseModuleConfig(`svc_gate {\n  ${urls}\n}`))
    expect(error.message).toContain(found)
    expect(error.message).not.toContain('SEKRIT')
  })
})

describe('parseModuleConfig errors name the line, the column and the expectation', () => {
  const cases: { name: string; text: string; line: number; column: number; message: string }[] = [
    {
      name: 'unknown directive',
      text: block('sampling 0.5'),
      line: 4,
      column: 3,
      message:
        'svc_gate: expected a directive of svc_gate (live, shadow, sampling_rate, live_timeout, shadow_timeout, max_body_size, shadow_rules, max_concurrent_callbacks, http_client, diff_ignored_fields, diff_included_fields, diff_float_tolerance, diff_sort_arrays, redacted_fields, trusted_proxies, endpoints, max_bytes_in_flight, noise_sample_rate, noise_max_per_second), found unknown directive "sampling"',
    },
    {
      name: 'unknown directive in http_client',
      text: block('http_client {\n    max_idle 5\n  }'),
      line: 5,
      column: 5,
      message:
        'http_client: expected a directive of http_client (max_idle_conns, max_idle_conns_per_host, max_conns_per_host, idle_conn_timeout), found unknown directive "max_idle"',
    },
    {
      name: 'missing required live',
      text: 'svc_gate {\n  shadow http://a\n}',
      line: 1,
      column: 1,
      message: 'svc_gate: expected a "live" directive, found none',
    },
    {
      name: 'missing required shadow',
      text: '\n  svc_gate { live http://a }',
      line: 2,
      column: 3,
      message: 'svc_gate: expected a "shadow" directive, found none',
    },
    {
      name: 'two values for a single-valued directive (points at the second)',
      text: block('shadow_timeout 10 s'),
      line: 4,
      column: 21,
      message: 'shadow_timeout: expected one value, found 2 values',
    },
    {
      name: 'bad duration unit',
      text: block('live_timeout 5sec'),
      line: 4,
      column: 16,
      message:
        'live_timeout: expected a positive duration such as "300ms", "5s" or "1m30s", at most 596h, found "5sec"',
    },
    {
      name: 'zero timeout',
      text: block('live_timeout 0s'),
      line: 4,
      column: 16,
      message:
        'live_timeout: expected a positive duration such as "300ms", "5s" or "1m30s", at most 596h, found "0s"',
    },
    {
      name: 'a timeout longer than a timer can wait',
      text: block('live_timeout 600h'),
      line: 4,
      column: 16,
      message:
        'live_timeout: expected a positive duration such as "300ms", "5s" or "1m30s", at most 596h, found "600h"',
    },
    {
      name: 'negative idle timeout',
      text: block('http_client {\n    idle_conn_timeout -1s\n  }'),
      line: 5,
      column: 23,
      message:
        'http_client.idle_conn_timeout: expected a duration >= 0 such as "90s" (0 means no timeout), at most 596h, found "-1s"',
    },
    {
      name: 'sampling rate above 1',
      text: block('sampling_rate 1.5'),
      line: 4,
      column: 17,
      message: 'sampling_rate: expected a number from 0 to 1, found "1.5"',
    },
    {
      name: 'sampling rate below 0',
      text: block('sampling_rate -0.1'),
      line: 4,
      column: 17,
      message: 'sampling_rate: expected a number from 0 to 1, found "-0.1"',
    },
    {
      name: 'sampling rate not a number',
      text: block('sampling_rate 50%'),
      line: 4,
      column: 17,
      message: 'sampling_rate: expected a number from 0 to 1, found "50%"',
    },
    {
      name: 'duplicate directive',
      text: block('live http://other'),
      line: 4,
      column: 3,
      message:
        'live: expected one "live" directive (the first is at line 2, column 3), found a duplicate',
    },
    {
      name: 'duplicate http_client',
      text: block('http_client { }\n  http_client { }'),
      line: 5,
      column: 3,
      message:
        'http_client: expected one "http_client" directive (the first is at line 4, column 3), found a duplicate',
    },
    {
      name: 'bad URL',
      text: 'svc_gate {\n  live localhost:3000\n  shadow http://a\n}',
      line: 2,
      column: 8,
      message:
        'live: expected an http or https URL without query or fragment, found "localhost:3000"',
    },
    {
      name: 'URL with a query',
      text: 'svc_gate {\n  live http://a\n  shadow "http://b/?x=1"\n}',
      line: 3,
      column: 10,
      message:
        'shadow: expected an http or https URL without query or fragment, found "http://b/?x=1"',
    },
    {
      name: 'size with a unit',
      text: block('max_body_size 10m'),
      line: 4,
      column: 17,
      message:
        'max_body_size: expected a whole number >= 0 (bytes; 0 means unlimited), found "10m"',
    },
    {
      name: 'negative count',
      text: block('max_concurrent_callbacks -1'),
      line: 4,
      column: 28,
      message:
        'max_concurrent_callbacks: expected a whole number >= 0 (0 means unbounded), found "-1"',
    },
    {
      name: 'a budget of no bytes (unbounded memory is refused)',
      text: block('max_bytes_in_flight 0'),
      line: 4,
      column: 23,
      message: 'max_bytes_in_flight: expected a whole number >= 1 (bytes, at least 1), found "0"',
    },
    {
      name: 'a noise sample rate above 1',
      text: block('noise_sample_rate 1.5'),
      line: 4,
      column: 21,
      message: 'noise_sample_rate: expected a number from 0 to 1, found "1.5"',
    },
    {
      name: 'no noise repeats a second (0 is refused: a rate of 0 turns the check off)',
      text: block('noise_max_per_second 0'),
      line: 4,
      column: 24,
      message: 'noise_max_per_second: expected a whole number from 1 to 10000 (repeats to live a second), found "0"',
    },
    {
      name: 'more noise repeats a second than the cap',
      text: block('noise_max_per_second 10001'),
      line: 4,
      column: 24,
      message: 'noise_max_per_second: expected a whole number from 1 to 10000 (repeats to live a second), found "10001"',
    },
    {
      name: 'negative tolerance',
      text: block('diff_float_tolerance -0.5'),
      line: 4,
      column: 24,
      message: 'diff_float_tolerance: expected a number >= 0, found "-0.5"',
    },
    {
      name: 'bad switch',
      text: block('diff_sort_arrays yes'),
      line: 4,
      column: 20,
      message: 'diff_sort_arrays: expected on, off, true or false, found "yes"',
    },
    {
      name: 'bad field path',
      text: block('redacted_fields body.a password'),
      line: 4,
      column: 26,
      message:
        'redacted_fields: expected field paths that start with "status", "headers." or "body.", found "password"',
    },
    {
      name: 'bad trusted proxy',
      text: block('trusted_proxies 10.0.0.1 "lb.internal"'),
      line: 4,
      column: 28,
      message: 'trusted_proxies: expected IP addresses or CIDR networks, found "lb.internal"',
    },
    {
      name: 'bad endpoint template in a later value',
      text: block('endpoints "/v2/products/{sku}" "/a,/v2/{id}.json"'),
      line: 4,
      column: 34,
      message:
        'endpoints: invalid endpoint template "/v2/{id}.json" (at index 2): a "{name}" must fill a whole segment',
    },
    {
      name: 'endpoint template listed twice across directives',
      text: block('endpoints "/a/{x}"\n  endpoints "/b" "/a/{x}"'),
      line: 5,
      column: 18,
      message: 'endpoints: invalid endpoint template "/a/{x}" (at index 2): it is listed twice',
    },
    {
      name: 'endpoint template without its leading slash',
      text: block('endpoints v2/products'),
      line: 4,
      column: 13,
      message: 'endpoints: invalid endpoint template "v2/products" (at index 0): it must start with "/"',
    },
    {
      name: 'field path the diff cannot parse',
      text: block('diff_ignored_fields body.a "body..b"'),
      line: 4,
      column: 30,
      message: 'diff_ignored_fields: invalid field path "body..b": it has an empty segment',
    },
    {
      name: 'shadow the same as live',
      text: 'svc_gate {\n  live http://127.0.0.1:3000\n  shadow http://127.0.0.1:3000/\n}',
      line: 3,
      column: 10,
      message: 'shadow: expected a URL different from live, found "http://127.0.0.1:3000/"',
    },
    {
      name: 'shadow the same as live, spelt otherwise',
      text: 'svc_gate {\n  live http://LOCALHOST:80\n  shadow http://localhost/\n}',
      line: 3,
      column: 10,
      message: 'shadow: expected a URL different from live, found "http://localhost/"',
    },
    {
      name: 'bad shadow rule in a later value',
      text: block('shadow_rules "allow GET:/a," "deny POST:/b," "allow"'),
      line: 4,
      column: 48,
      message: 'shadow_rules: rule 3 "allow" must be "ACTION METHOD:path"',
    },
    {
      name: 'bad shadow rule',
      text: block('shadow_rules "allow GET:/a,allow GET"'),
      line: 4,
      column: 16,
      message: 'shadow_rules: rule 2 "allow GET" must be "ACTION METHOD:path"',
    },
    {
      name: 'directive without a value',
      text: block('sampling_rate;'),
      line: 4,
      column: 3,
      message: 'sampling_rate: expected a value, found none',
    },
    {
      name: 'value directive with a block',
      text: block('sampling_rate 1 { }'),
      line: 4,
      column: 3,
      message: 'sampling_rate: expected values, not a block (quote a value that holds "{", as "/v2/{sku}"), found a block',
    },
    {
      name: 'an endpoint template left unquoted',
      text: block('endpoints /v2/products/{sku}'),
      line: 4,
      column: 3,
      message: 'endpoints: expected values, not a block (quote a value that holds "{", as "/v2/{sku}"), found a block',
    },
    {
      name: 'http_client without a block',
      text: block('http_client'),
      line: 4,
      column: 3,
      message: 'http_client: expected a block "http_client { ... }", found none',
    },
    {
      name: 'http_client with a value',
      text: block('http_client 5 { }'),
      line: 4,
      column: 15,
      message: 'http_client: expected "{" after http_client, found "5"',
    },
    {
      name: 'no svc_gate block',
      text: '# nothing\n',
      line: 1,
      column: 1,
      message: 'svc_gate: expected an "svc_gate { ... }" block, found end of input',
    },
    {
      name: 'another top-level directive',
      text: 'gate {\n}',
      line: 1,
      column: 1,
      message: 'gate: expected an "svc_gate { ... }" block, found "gate"',
    },
    {
      name: 'svc_gate with a value',
      text: 'svc_gate main {\n}',
      line: 1,
      column: 10,
      message: 'svc_gate: expected "{" after svc_gate, found "main"',
    },
    {
      name: 'svc_gate without a block',
      text: 'svc_gate',
      line: 1,
      column: 1,
      message: 'svc_gate: expected a block "svc_gate { ... }", found none',
    },
    {
      name: 'text after the block',
      text: `${block()}\nsvc_gate {\n}`,
      line: 6,
      column: 1,
      message: 'svc_gate: expected nothing after the svc_gate block, found "svc_gate"',
    },
  ]
  for (const c of cases) {
    test(`${c.name}: line ${c.line}, column ${c.column}`, () => {
      const error = configError(() => parseModuleConfig(c.text))
      expect(error).toMatchObject({ code: 'invalid-module-config', line: c.line, column: c.column })
      expect(error.message).toBe(`line ${c.line}, column ${c.column}: ${c.message}`)
    })
  }

  test('reports the first bad value in the order of the text', () => {
    const text = 'svc_gate {\n  diff_sort_arrays maybe\n  sampling_rate 2\n}'
    expect(configError(() => parseModuleConfig(text))).toMatchObject({
      directive: 'diff_sort_arrays',
      line: 2,
    })
  })

  test('lets syntax errors through as BlockSyntaxError', () => {
    expect(() => parseModuleConfig('svc_gate {\n  live "http://a\n}')).toThrow(BlockSyntaxError)
  })

  test('both errors carry their class name, so an uncaught one prints as such', () => {
    expect(configError(() => parseModuleConfig('svc_gate {\n  sampling_rate 2\n}')).name).toBe('ModuleConfigError')
    try {
      parseModuleConfig('svc_gate {\n  live "http://a\n}')
    } catch (error) {
      expect((error as Error).name).toBe('BlockSyntaxError')
    }
    expect.assertions(2)
  })
})

describe('validateModuleConfig (object form)', () => {
  const base: SvcGateOptions = { live: 'http://127.0.0.1:3000', shadow: 'http://127.0.0.1:3001' }

  test('gives the same defaults as the block', () => {
    expect(validateModuleConfig(base)).toEqual(DEFAULTS)
  })

  test('gives the same config as the equivalent block', () => {
    const options: SvcGateOptions = {
      ...base,
      samplingRate: 0.5,
      liveTimeout: '1s',
      shadowTimeout: 2_000,
      maxBodySize: 1024,
      shadowRules: 'allow POST:/api/search',
      maxConcurrentCallbacks: 10,
      httpClient: { maxIdleConns: 5, idleConnTimeout: '30s' },
      diffIgnoredFields: ['body.a', 'body.b'],
      diffIncludedFields: 'body.x, body.y',
      diffFloatTolerance: 0.5,
      diffSortArrays: true,
      redactedFields: 'headers.X-Secret',
      trustedProxies: ['10.0.0.0/8', '::1'],
      endpoints: ['/v2/products/{sku}/price', '/static/*'],
    }
    const text = block(`sampling_rate 0.5
      live_timeout 1s
      shadow_timeout 2s
      max_body_size 1024
      shadow_rules "allow POST:/api/search"
      max_concurrent_callbacks 10
      http_client { max_idle_conns 5; idle_conn_timeout 30s }
      diff_ignored_fields body.a body.b
      diff_included_fields body.x,body.y
      diff_float_tolerance 0.5
      diff_sort_arrays on
      redacted_fields headers.X-Secret
      trusted_proxies 10.0.0.0/8 ::1
      endpoints "/v2/products/{sku}/price" /static/*`)
    expect(validateModuleConfig(options)).toEqual(parseModuleConfig(text))
  })

  test('accepts the block spellings of numbers and switches', () => {
    const config = validateModuleConfig({
      ...base,
      samplingRate: '0.1',
      maxBodySize: '10',
      diffSortArrays: 'on',
    })
    expect(config).toMatchObject({ samplingRate: 0.1, maxBodySize: 10, diffSortArrays: true })
  })

  test('treats an explicit undefined as absent', () => {
    expect(
      validateModuleConfig({ ...base, samplingRate: undefined, httpClient: undefined }),
    ).toEqual(DEFAULTS)
  })

  test('names the option, without a position, when a value is bad', () => {
    const error = configError(() => validateModuleConfig({ ...base, samplingRate: 1.5 }))
    expect(error).toMatchObject({ directive: 'samplingRate', line: undefined, column: undefined })
    expect(error.message).toBe('samplingRate: expected a number from 0 to 1, found 1.5')
  })

  // Both forms go through one validation: the same rule, the same expectation.
  const pairs: { name: string; text: string; options: object; directive: string }[] = [
    {
      name: 'rate',
      text: 'sampling_rate 2',
      options: { samplingRate: 2 },
      directive: 'samplingRate',
    },
    {
      name: 'duration',
      text: 'live_timeout 5x',
      options: { liveTimeout: '5x' },
      directive: 'liveTimeout',
    },
    {
      name: 'nested count',
      text: 'http_client { max_conns_per_host 1.5 }',
      options: { httpClient: { maxConnsPerHost: 1.5 } },
      directive: 'httpClient.maxConnsPerHost',
    },
    {
      name: 'switch',
      text: 'diff_sort_arrays 1',
      options: { diffSortArrays: 1 },
      directive: 'diffSortArrays',
    },
    {
      name: 'field path',
      text: 'redacted_fields x',
      options: { redactedFields: ['x'] },
      directive: 'redactedFields',
    },
    {
      name: 'trusted proxy',
      text: 'trusted_proxies 10.0.0.0/33',
      options: { trustedProxies: '10.0.0.0/33' },
      directive: 'trustedProxies',
    },
    {
      name: 'endpoint template',
      text: 'endpoints "/a/*/b"',
      options: { endpoints: ['/a/*/b'] },
      directive: 'endpoints',
    },
    {
      name: 'rules',
      text: 'shadow_rules "deny"',
      options: { shadowRules: 'deny' },
      directive: 'shadowRules',
    },
  ]
  for (const pair of pairs) {
    test(`rejects a bad ${pair.name} with the same expectation in both forms`, () => {
      const fromText = configError(() => parseModuleConfig(block(pair.text)))
      const fromObject = configError(() => validateModuleConfig({ ...base, ...pair.options }))
      expect(fromObject.expected).toBe(fromText.expected)
      expect(fromObject.directive).toBe(pair.directive)
    })
  }

  test.each<[string, unknown, string]>([
    [
      'unknown option',
      { ...base, sampling_rate: 1 },
      'options: expected an option of options (live, shadow, samplingRate, liveTimeout, shadowTimeout, maxBodySize, shadowRules, maxConcurrentCallbacks, httpClient, diffIgnoredFields, diffIncludedFields, diffFloatTolerance, diffSortArrays, redactedFields, trustedProxies, endpoints, maxBytesInFlight, noiseSampleRate, noiseMaxPerSecond), found unknown option "sampling_rate"',
    ],
    ['missing live', { shadow: 'http://a' }, 'options: expected a "live" option, found none'],
    ['not an object', 'x'.length, 'options: expected an object, found 1'],
    [
      'a URL with spaces around it',
      { ...base, live: ' http://a ' },
      'live: expected an http or https URL without query or fragment, found " http://a "',
    ],
    [
      'httpClient not an object',
      { ...base, httpClient: 5 },
      'httpClient: expected an object, found 5',
    ],
    [
      'array for a single value',
      { ...base, live: ['http://a'] },
      'live: expected an http or https URL without query or fragment, found ["http://a"]',
    ],
    [
      'non-string in a list',
      { ...base, diffIgnoredFields: ['body.a', 3] },
      'diffIgnoredFields: expected field paths as text, found 3',
    ],
    [
      'duration as Infinity',
      { ...base, liveTimeout: Number.POSITIVE_INFINITY },
      'liveTimeout: expected a positive duration such as "300ms", "5s" or "1m30s", at most 596h, found Infinity',
    ],
  ])('rejects %s', (_, options, message) => {
    expect(configError(() => validateModuleConfig(options as SvcGateOptions)).message).toBe(message)
  })
})

describe('resolveModuleConfig', () => {
  test('reads text as a block and anything else as options', () => {
    const options = { live: 'http://127.0.0.1:3000', shadow: 'http://127.0.0.1:3001' }
    expect(resolveModuleConfig(block())).toEqual(DEFAULTS)
    expect(resolveModuleConfig(options)).toEqual(DEFAULTS)
  })
})
