import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { CAPTURE_METADATA_ALLOWANCE, captureRequestLimit, decodedLength, isCaptureRoute } from '../../../src/api/capture-limits.ts'

describe('capture limits', () => {
  test('property: decodedLength is the decoded size of any base64, padded or not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.boolean(), (bytes, padded) => {
        const text = Buffer.from(bytes).toString('base64')
        expect(decodedLength(padded ? text : text.replace(/=+$/, ''))).toBe(bytes.byteLength)
      }),
      { numRuns: 1000 },
    )
  })

  test('createRequest may carry four bodies at the limit as base64 (a noise check adds one), plus the allowance', () => {
    expect(captureRequestLimit(10_485_760)).toBe(4 * Buffer.alloc(10_485_760).toString('base64').length + CAPTURE_METADATA_ALLOWANCE)
    expect(captureRequestLimit(1)).toBe(4 * 4 + CAPTURE_METADATA_ALLOWANCE)
  })

  test.each([
    ['POST', '/gates/0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40/requests', true],
    ['POST', '/gates/x/requests/', true],
    ['GET', '/gates/x/requests', false],
    ['POST', '/gates', false],
    ['POST', '/gates/x/requests/y', false],
  ])('%s %s is createRequest: %p', (method, path, expected) => {
    expect(isCaptureRoute(method, path)).toBe(expected)
  })
})
