import { describe, expect, test } from 'bun:test'
import {
  diffSignature,
  errorSignature,
  MAX_SIGNATURES_PER_GATE,
  overflowSignature,
  signatureWithinCap,
  type Endpoint,
} from '../../../src/insights/index.ts'

const ENDPOINT: Endpoint = { method: 'GET', template: '/v2/products/{id}' }
const full = (count: number) => new Set(Array.from({ length: count }, (_, i) => `id-${i}`))

describe('overflowSignature', () => {
  test('is one per endpoint and kind, with no ops and no error class', () => {
    const diff = overflowSignature(ENDPOINT, 'diff')
    const error = overflowSignature(ENDPOINT, 'error')
    expect(diff).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      kind: 'diff',
      method: 'GET',
      template: '/v2/products/{id}',
      overflow: true,
      ops: [],
      truncated: false,
    })
    expect(error).toMatchObject({
      kind: 'error',
      overflow: true,
      liveError: null,
      shadowError: null,
    })
    expect(diff.id).not.toBe(error.id)
    expect(overflowSignature(ENDPOINT, 'diff').id).toBe(diff.id)
    expect(overflowSignature({ ...ENDPOINT, method: 'POST' }, 'diff').id).not.toBe(diff.id)
  })

  test('never shares an id with an ordinary signature', () => {
    const other = overflowSignature(ENDPOINT, 'error')
    expect(other.id).not.toBe(errorSignature(ENDPOINT, null, null).id)
  })
})

describe('signatureWithinCap', () => {
  const signature = diffSignature(ENDPOINT, [{ op: 'replace', path: '/body/price' }])!

  test(`the gate's limit is ${MAX_SIGNATURES_PER_GATE} signatures by default`, () => {
    expect(signatureWithinCap(signature, full(MAX_SIGNATURES_PER_GATE - 1))).toBe(signature)
    expect(signatureWithinCap(signature, full(MAX_SIGNATURES_PER_GATE))).toEqual(
      overflowSignature(ENDPOINT, 'diff'),
    )
  })

  test('a known signature stays, also past the limit', () => {
    expect(signatureWithinCap(signature, full(5).add(signature.id), 3)).toBe(signature)
  })

  test('a new one past the limit counts under the (other) of its endpoint and kind', () => {
    expect(signatureWithinCap(signature, full(3), 3)).toEqual(overflowSignature(ENDPOINT, 'diff'))
    const error = errorSignature(ENDPOINT, null, 'timeout')
    expect(signatureWithinCap(error, full(3), 3)).toEqual(overflowSignature(ENDPOINT, 'error'))
  })

  test('an (other) signature is always allowed', () => {
    const other = overflowSignature(ENDPOINT, 'diff')
    expect(signatureWithinCap(other, full(3), 3)).toBe(other)
  })
})
