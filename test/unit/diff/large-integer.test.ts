import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import {
  compileCaptureOptions,
  DEFAULT_DIFF_CONFIG,
  formatPatch,
  MAX_COMPARE_DEPTH,
  processCapture,
  REDACTED,
  type CaptureInput,
  type DiffConfig,
} from '../../../src/diff/index.ts'
import { isLargeInteger, parseJson, sameLargeNumber } from '../../../src/diff/large-integer.ts'

const SAFE = BigInt(Number.MAX_SAFE_INTEGER)
/** Integers past 2^53, as snowflake ids and nanosecond clocks are, either sign. */
const large = fc.oneof(fc.bigInt({ min: SAFE + 1n, max: 2n ** 70n }), fc.bigInt({ min: -(2n ** 70n), max: -SAFE - 1n }))

const encode = (text: string) => new TextEncoder().encode(text)
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const JSON_HEADERS = { 'Content-Type': ['application/json'] }

function capture(live: string, shadow: string): CaptureInput {
  return {
    request: { headers: {}, body: new Uint8Array(0) },
    live: { status: 200, headers: JSON_HEADERS, body: encode(live) },
    shadow: { status: 200, headers: JSON_HEADERS, body: encode(shadow) },
  }
}

const compiled = (diff: Partial<DiffConfig> = {}, redactedFields: string[] = []) =>
  compileCaptureOptions({ diff: { ...DEFAULT_DIFF_CONFIG, ...diff }, redactedFields })

describe('parseJson', () => {
  test('keeps an integer past 2^53 as its digits; safe integers, floats and strings as JSON.parse gives them', () => {
    const value = parseJson('{"id":9007199254740993,"n":9007199254740991,"f":1.5,"s":"9007199254740993","e":1e20}') as Record<string, unknown>
    expect(isLargeInteger(value.id)).toBe(true)
    expect(value.n).toBe(Number.MAX_SAFE_INTEGER)
    expect(value.f).toBe(1.5)
    expect(value.s).toBe('9007199254740993')
    expect(value.e).toBe(1e20)
    expect(JSON.stringify(value)).toBe('{"id":9007199254740993,"n":9007199254740991,"f":1.5,"s":"9007199254740993","e":100000000000000000000}')
  })

  test('any large integer, anywhere, is written back as the digits it came with', () => {
    fc.assert(
      fc.property(large, fc.integer({ min: 0, max: 3 }), (n, nesting) => {
        const text = '['.repeat(nesting) + `{"v":${n}}` + ']'.repeat(nesting)
        expect(JSON.stringify(parseJson(text))).toBe(text)
      }),
    )
  })

  test('throws on what is not JSON, as JSON.parse does', () => {
    expect(() => parseJson('{"id":90071992547409930,')).toThrow(SyntaxError)
  })
})

describe('sameLargeNumber', () => {
  test('two large integers by their exact difference, within the tolerance', () => {
    const a = parseJson('9007199254740993')
    const b = parseJson('9007199254740992')
    expect(sameLargeNumber(a, b, 0)).toBe(false)
    expect(sameLargeNumber(a, parseJson('9007199254740993'), 0)).toBe(true)
    expect(sameLargeNumber(a, b, 1)).toBe(true)
    // Neither a large integer, or one not a number: not this function's to say.
    expect(sameLargeNumber(1, 1, 0)).toBe(false)
    expect(sameLargeNumber(a, '9007199254740993', 0)).toBe(false)
  })
})

describe('processCapture with integers past 2^53', () => {
  test('ids that differ in their last digit are a diff showing the digits each side sent', () => {
    const out = processCapture(capture('{"id":9007199254740993}', '{"id":9007199254740992}'), compiled())
    expect(out.comparison.kind).toBe('diff')
    expect(JSON.stringify(out.comparison.kind === 'diff' && out.comparison.ops)).toBe('[{"op":"replace","path":"/body/id","value":9007199254740992}]')
    const snowflakes = processCapture(capture('{"id":1234567890123456789}', '{"id":1234567890123456700}'), compiled())
    expect(JSON.stringify(snowflakes.comparison)).toBe('{"kind":"diff","ops":[{"op":"replace","path":"/body/id","value":1234567890123456700}]}')
  })

  test('any two large integers are a match exactly when they are the same integer, in objects and arrays', () => {
    fc.assert(
      // Near neighbours: most round to the same double.
      fc.property(large, fc.bigInt({ min: 0n, max: 1000n }), (a, delta) => {
        const b = a + delta
        const out = processCapture(capture(`{"ids":[${a}],"id":${a}}`, `{"ids":[${b}],"id":${b}}`), compiled())
        expect(out.comparison.kind).toBe(delta === 0n ? 'match' : 'diff')
      }),
    )
  })

  test('sort_arrays orders them by value; float_tolerance applies to their exact difference', () => {
    const sorted = compiled({ sort_arrays: true })
    expect(processCapture(capture('[9007199254740993,9007199254740995]', '[9007199254740995,9007199254740993]'), sorted).comparison.kind).toBe('match')
    expect(processCapture(capture('[9007199254740993,9007199254740995]', '[9007199254740995,9007199254740992]'), sorted).comparison.kind).toBe('diff')
    const tolerant = compiled({ float_tolerance: 2 })
    expect(processCapture(capture('{"t":90071992547409930}', '{"t":90071992547409932}'), tolerant).comparison.kind).toBe('match')
    expect(processCapture(capture('{"t":90071992547409930}', '{"t":90071992547409933}'), tolerant).comparison.kind).toBe('diff')
  })

  test("never equal to a body's own object of one member named rawJSON, in objects, arrays and sorted arrays", () => {
    const live = '{"id":9007199254740993,"ids":[9007199254740993]}'
    const shadow = '{"id":{"rawJSON":"9007199254740993"},"ids":[{"rawJSON":"9007199254740993"}]}'
    expect(processCapture(capture(live, shadow), compiled()).comparison.kind).toBe('diff')
    expect(processCapture(capture(live, shadow), compiled({ sort_arrays: true })).comparison.kind).toBe('diff')
    expect(processCapture(capture(live, shadow), compiled({ float_tolerance: 1 })).comparison.kind).toBe('diff')
  })

  test('a value added whole, pruned of an ignored field, keeps its large integer', () => {
    const out = processCapture(capture('{}', '{"x":{"id":9007199254740993,"ts":2}}'), compiled({ ignored_fields: ['body.x.ts'] }))
    expect(JSON.stringify(out.comparison)).toBe('{"kind":"diff","ops":[{"op":"add","path":"/body/x","value":{"id":9007199254740993}}]}')
  })

  test('past the depth bound, where subtrees compare as text, and in a patch as formatted for a log line', () => {
    const deep = (n: string) => '['.repeat(MAX_COMPARE_DEPTH + 2) + `{"id":${n}}` + ']'.repeat(MAX_COMPARE_DEPTH + 2)
    expect(processCapture(capture(deep('9007199254740993'), deep('9007199254740993')), compiled()).comparison.kind).toBe('match')
    expect(processCapture(capture(deep('9007199254740993'), deep('9007199254740992')), compiled()).comparison.kind).toBe('diff')
    expect(formatPatch([{ op: 'replace', path: '/body/id', value: parseJson('9007199254740993') }])).toContain('9007199254740993')
  })

  test('a body re-written for redaction keeps its large integers as they were sent', () => {
    const out = processCapture(capture('{"token":"t-1","id":9007199254740993}', '{"token":"t-2","id":9007199254740993}'), compiled({}, ['body.token']))
    expect(decode(out.live.body)).toBe(`{"token":"${REDACTED}","id":9007199254740993}`)
    expect(out.comparison.kind).toBe('match')
  })
})
