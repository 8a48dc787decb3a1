import { describe, expect, test } from 'bun:test'
import { opMark, signatureLine } from '../../../hub/src/lib/signature-line.ts'

/** The summaries the hub shows are the ones docs/insights.md "Summaries" gives. */
describe('signatureLine', () => {
  const base = { method: 'GET', template: '/v2/products/{id}' }

  test('a diff: changed, only shadow, only live, in that order', () => {
    const ops = [
      { op: 'add', path: '/body/stock/reserved' },
      { op: 'remove', path: '/body/x' },
      { op: 'replace', path: '/body/price/tax' },
    ]
    expect(signatureLine({ ...base, kind: 'diff', ops })).toBe(
      'GET /v2/products/{id}: changed /body/price/tax, only shadow /body/stock/reserved, only live /body/x',
    )
  })

  test('a failure, from the error classes the API gives', () => {
    expect(signatureLine({ method: 'POST', template: '/v2/orders', kind: 'error', ops: [], shadow_error: 'timeout' })).toBe(
      'POST /v2/orders: shadow timed out',
    )
    expect(
      signatureLine({ method: 'POST', template: '/v2/orders', kind: 'error', ops: [], live_error: 'refused', shadow_error: 'timeout' }),
    ).toBe('POST /v2/orders: live refused the connection, shadow timed out')
    // Without the classes (or with one this hub does not know), plainly a failure.
    expect(signatureLine({ ...base, kind: 'error', ops: [] })).toBe('GET /v2/products/{id}: failed')
    expect(signatureLine({ ...base, kind: 'error', ops: [], shadow_error: 'quantum' })).toBe('GET /v2/products/{id}: shadow failed')
  })

  test('the overflow signature of a gate past its limit', () => {
    expect(signatureLine({ ...base, kind: 'diff', ops: [], overflow: true })).toBe(
      "GET /v2/products/{id}: other differences (the gate's signature limit was reached)",
    )
  })

  test('a control character cannot break the line', () => {
    expect(signatureLine({ method: 'GET', template: '/a\nb', kind: 'diff', ops: [{ op: 'replace', path: '/body/x' }] })).toBe(
      'GET /a\\u000ab: changed /body/x',
    )
  })
})

test('opMark words an op as the request page does', () => {
  expect(opMark('replace')).toEqual({ label: 'changed', cls: 'mark-changed' })
  expect(opMark('add').label).toBe('only shadow')
  expect(opMark('remove').label).toBe('only live')
  expect(opMark('move').label).toBe('move')
})
