import { describe, expect, test } from 'bun:test'
import {
  diffSignature,
  errorSignature,
  overflowSignature,
  signatureSummary,
  SUMMARY_PATHS,
  type Endpoint,
} from '../../../src/insights/index.ts'

const ENDPOINT: Endpoint = { method: 'GET', template: '/v2/products/{id}' }

describe('signatureSummary', () => {
  test('names what changed, what only shadow has and what only live has', () => {
    const signature = diffSignature(ENDPOINT, [
      { op: 'remove', path: '/body/x' },
      { op: 'add', path: '/body/stock/reserved' },
      { op: 'replace', path: '/body/price/tax' },
    ])!
    expect(signatureSummary(signature)).toBe(
      'GET /v2/products/{id}: changed /body/price/tax, only shadow /body/stock/reserved, only live /body/x',
    )
  })

  test('lists several paths of one kind in the signature order', () => {
    const signature = diffSignature(ENDPOINT, [
      { op: 'replace', path: '/body/price' },
      { op: 'replace', path: '/status' },
      { op: 'replace', path: '/body/items/3/name' },
    ])!
    expect(signatureSummary(signature)).toBe(
      'GET /v2/products/{id}: changed /body/items/*/name, /body/price, /status',
    )
  })

  test(`names at most ${SUMMARY_PATHS} paths, then how many more`, () => {
    const ops = Array.from({ length: SUMMARY_PATHS + 3 }, (_, i) => ({
      op: 'add' as const,
      path: `/body/${String.fromCharCode(97 + i)}`,
    }))
    expect(signatureSummary(diffSignature(ENDPOINT, ops)!)).toBe(
      'GET /v2/products/{id}: only shadow /body/a, /body/b, /body/c, /body/d, /body/e, /body/f, and 3 more',
    )
    expect(signatureSummary({ ...diffSignature(ENDPOINT, ops)!, truncated: true })).toEndWith(
      ', and 3+ more',
    )
  })

  test.each([
    [null, 'timeout', 'POST /v2/orders: shadow timed out'],
    [null, 'refused', 'POST /v2/orders: shadow refused the connection'],
    [null, 'reset', 'POST /v2/orders: shadow reset the connection'],
    [null, 'too_large', 'POST /v2/orders: shadow answered too large a response'],
    [null, 'bad_response', 'POST /v2/orders: shadow sent a bad response'],
    [null, 'error', 'POST /v2/orders: shadow failed'],
    ['refused', 'timeout', 'POST /v2/orders: live refused the connection, shadow timed out'],
    ['timeout', null, 'POST /v2/orders: live timed out'],
  ] as const)('an error signature (live %p, shadow %p) reads %p', (live, shadow, summary) => {
    const signature = errorSignature({ method: 'POST', template: '/v2/orders' }, live, shadow)
    expect(signatureSummary(signature)).toBe(summary)
  })

  test('an (other) signature says the limit was reached', () => {
    expect(signatureSummary(overflowSignature(ENDPOINT, 'diff'))).toBe(
      "GET /v2/products/{id}: other differences (the gate's signature limit was reached)",
    )
    expect(signatureSummary(overflowSignature(ENDPOINT, 'error'))).toBe(
      "GET /v2/products/{id}: other failures (the gate's signature limit was reached)",
    )
  })

  test('stays one line whatever a key or a method holds', () => {
    const signature = diffSignature({ method: 'GE\nT', template: '/a\r\n' }, [
      { op: 'add', path: '/body/line\nbreak' },
      { op: 'add', path: '/body/sep\u2028arator' },
    ])!
    const summary = signatureSummary(signature)
    expect(summary).not.toMatch(/[\n\r\u2028]/)
    expect(summary).toBe(
      'GE\\u000aT /a\\u000d\\u000a: only shadow /body/line\\u000abreak, /body/sep\\u2028arator',
    )
  })

  test('reads the fields as the hub receives them', () => {
    expect(
      signatureSummary({
        kind: 'diff',
        method: 'GET',
        template: '/x',
        ops: [{ op: 'replace', path: '/body' }],
      }),
    ).toBe('GET /x: changed /body')
  })
})

describe('signature-summary.ts', () => {
  test('bundles for the browser alone, as the hub imports it', async () => {
    const build = await Bun.build({
      entrypoints: [import.meta.dir + '/../../../src/insights/signature-summary.ts'],
      target: 'browser',
    })
    expect(build.success).toBe(true)
    const code = await build.outputs[0]!.text()
    expect(code).toContain('only shadow')
    expect(code).not.toContain('crypto')
  })
})
