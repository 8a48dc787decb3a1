import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { parseBlock } from '../../../src/module/block-parser.ts'
import {
  parseModuleConfig,
  validateModuleConfig,
  type SvcGateConfig,
} from '../../../src/module/module-config.ts'
import { printBlock, quote } from '../../../src/module/print-block.ts'
import { fieldPathProblem } from '../../../src/diff/field-path.ts'
import { endpointTemplatesProblem } from '../../../src/insights/index.ts'
import { compileShadowRules } from '../../../src/proxy/policy/shadow-rules.ts'

describe('printBlock', () => {
  test('prints every directive in the documented order, defaults included', () => {
    const config = validateModuleConfig({
      live: 'http://127.0.0.1:3000',
      shadow: 'http://127.0.0.1:3001',
    })
    expect(printBlock(config)).toBe(`svc_gate {
    live http://127.0.0.1:3000
    shadow http://127.0.0.1:3001
    sampling_rate 1
    live_timeout 5s
    shadow_timeout 10s
    max_body_size 0
    max_concurrent_callbacks 200
    http_client {
        max_idle_conns 100
        max_idle_conns_per_host 10
        max_conns_per_host 100
        idle_conn_timeout 1m30s
    }
    diff_float_tolerance 0
    diff_sort_arrays off
    max_bytes_in_flight 268435456
    noise_sample_rate 0
    noise_max_per_second 5
}
`)
  })

  test('prints lists and rules, quoting what needs it', () => {
    const config = validateModuleConfig({
      live: 'http://a',
      shadow: 'http://b',
      liveTimeout: 1_005,
      shadowRules: 'allow POST:/api/search',
      diffIgnoredFields: ['body.a', 'body.first name', 'body.items.#.id'],
      redactedFields: ['body.#secret'],
      diffSortArrays: true,
    })
    const text = printBlock(config)
    expect(text).toContain('    live_timeout 1005ms\n')
    expect(text).toContain('    shadow_rules "allow POST:/api/search"\n')
    expect(text).toContain('    diff_ignored_fields body.a "body.first name" body.items.#.id\n')
    expect(text).toContain('    redacted_fields body.#secret\n')
    expect(text).toContain('    diff_sort_arrays on\n')
  })

  test.each([
    ['plain', 'plain'],
    ['http://h:1/p', 'http://h:1/p'],
    ['a#b', 'a#b'],
    ['back\\slash', 'back\\slash'],
    ['#lead', '"#lead"'],
    ['', '""'],
    ['two words', '"two words"'],
    ['semi;colon', '"semi;colon"'],
    ['{brace}', '"{brace}"'],
    ['say "hi"', '"say \\"hi\\""'],
    ["it's", '"it\'s"'],
    ['back\\slash and space', '"back\\\\slash and space"'],
    ['line\nbreak\ttab\rcr', '"line\\nbreak\\ttab\\rcr"'],
  ])('quotes %p as %s', (value, printed) => {
    expect(quote(value)).toBe(printed)
  })

  test('every quoted value reads back unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        expect(parseBlock(`x ${quote(value)}`)[0]?.args).toEqual([value])
      }),
    )
  })
})

// Arbitrary valid configs, with values that need quoting and escaping.
const tricky = fc.constantFrom(
  'a',
  'Z',
  '0',
  ' ',
  '"',
  "'",
  '\\',
  '{',
  '}',
  ';',
  '#',
  '\n',
  '\t',
  '.',
  '*',
  'é',
)
const fieldPath = fc
  .tuple(
    fc.constantFrom('status', 'headers', 'body', 'headers.', 'body.'),
    fc.array(tricky, { maxLength: 8 }).map((chars) => chars.join('')),
  )
  .map(([prefix, rest]) => (prefix.endsWith('.') ? prefix + (rest || 'x') : prefix))
  .filter((path) => path === path.trim() && fieldPathProblem(path) === undefined)
const fieldList = fc.array(fieldPath, { maxLength: 4 })
const ruleText = fc
  .array(
    fc.tuple(
      fc.constantFrom('allow', 'deny'),
      fc.constantFrom('GET', '*', 'POST', 'x-custom'),
      fc.array(fc.constantFrom('a', '/', '*', '.', '"', "'", '#', '{', ';', '\\'), {
        maxLength: 6,
      }),
    ),
    { maxLength: 3 },
  )
  .map((rules) =>
    rules.map(([action, method, chars]) => `${action} ${method}:/${chars.join('')}`).join(','),
  )
  .filter((text) => {
    try {
      compileShadowRules(text)
      return true
    } catch {
      return false
    }
  })
const templateSegment = fc.oneof(
  fc.constantFrom('{id}', '{sku_1}', '*', ''),
  fc
    .array(fc.constantFrom('a', 'v2', '0', '.', '-', '%41', 'é', '~', "'", '"', ';', '\\', '}'), {
      minLength: 1,
      maxLength: 4,
    })
    .map((chars) => chars.join('')),
)
const endpointTemplate = fc
  .array(templateSegment, { minLength: 1, maxLength: 4 })
  .map((segments) => `/${segments.join('/')}`)
  .filter((template) => endpointTemplatesProblem([template]) === undefined)
const url = fc.webUrl({ withQueryParameters: false, withFragments: false })
// Up to the longest a timer can wait (MAX_TIMER_MS), which the parser enforces.
const wholeMs = fc.integer({ min: 1, max: 2 ** 31 - 1 })
const anyMs = fc.oneof(
  wholeMs,
  wholeMs.map((ms) => ms / 8),
  fc.constantFrom(1_001, 1_005, 0.001),
)
const count = fc.oneof(fc.nat(1_000), fc.constant(Number.MAX_SAFE_INTEGER))
const config: fc.Arbitrary<SvcGateConfig> = fc
  .record({
    live: url,
    shadow: url,
    samplingRate: fc.double({ min: 0, max: 1, noNaN: true }).map((rate) => rate + 0),
    liveTimeoutMs: anyMs,
    shadowTimeoutMs: anyMs,
    maxBodySize: count,
    shadowRules: ruleText,
    maxConcurrentCallbacks: count,
    httpClient: fc.record({
      maxIdleConns: count,
      maxIdleConnsPerHost: count,
      maxConnsPerHost: count,
      idleConnTimeoutMs: fc.oneof(fc.constant(0), anyMs),
    }),
    diffIgnoredFields: fieldList,
    diffIncludedFields: fieldList,
    diffFloatTolerance: fc
      .double({ min: 0, noNaN: true, noDefaultInfinity: true })
      .map((n) => n + 0),
    diffSortArrays: fc.boolean(),
    redactedFields: fieldList,
    trustedProxies: fc.array(
      fc.oneof(fc.ipV4(), fc.ipV6(), fc.ipV4().map((ip) => `${ip}/24`)),
      { maxLength: 3 },
    ),
    endpoints: fc.uniqueArray(endpointTemplate, { maxLength: 3 }),
    maxBytesInFlight: fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.constant(Number.MAX_SAFE_INTEGER)),
    noiseSampleRate: fc.double({ min: 0, max: 1, noNaN: true }).map((rate) => rate + 0),
    noiseMaxPerSecond: fc.integer({ min: 1, max: 10_000 }),
  })
  // parseModuleConfig rejects a shadow equal to live.
  .filter((c) => c.live.replace(/\/+$/, '') !== c.shadow.replace(/\/+$/, ''))

describe('printBlock (properties)', () => {
  test('printing a config and parsing it back gives the same config', () => {
    fc.assert(
      fc.property(config, (c) => {
        expect(parseModuleConfig(printBlock(c))).toEqual(c)
      }),
      { numRuns: 500 },
    )
  })

  test('printing is stable: print, parse, print gives the same text', () => {
    fc.assert(
      fc.property(config, (c) => {
        const text = printBlock(c)
        expect(printBlock(parseModuleConfig(text))).toBe(text)
      }),
    )
  })
})
