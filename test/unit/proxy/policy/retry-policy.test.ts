import { describe, expect, test } from 'bun:test'
import {
  backoffDelayMs,
  classifyApiAnswer,
  isCaptureRejected,
  isRetryableAnswer,
  nextRetryDelayMs,
  parseRetryAfter,
} from '../../../../src/proxy/policy/retry-policy.ts'

const policy = { maxRetries: 3, initialDelayMs: 1000, deadlineMs: 30_000 }

describe('retry policy (API mode)', () => {
  const REJECTED_500 = JSON.stringify({ type: '/errors/internal', status: 500, capture_rejected: true })
  test.each([
    [201, '', 'ok', false],
    [400, '', 'rejected', false],
    [409, '', 'rejected', false],
    [413, '', 'rejected', false],
    [422, '', 'rejected', false],
    [500, REJECTED_500, 'rejected', false],
    [401, '', 'refused', false],
    [403, '', 'refused', false],
    [404, '', 'refused', false],
    [429, '', 'throttled', true],
    [503, '', 'throttled', true],
    [500, '', 'unavailable', true],
    [500, '{"capture_rejected":"true"}', 'unavailable', true],
    [502, REJECTED_500, 'unavailable', true],
    [504, '', 'unavailable', true],
  ] as const)('status %d with body %j is %s (retried: %p)', (status, body, kind, retried) => {
    expect(classifyApiAnswer(status, body)).toBe(kind)
    expect(isRetryableAnswer(kind)).toBe(retried)
  })

  test.each([
    ['{"capture_rejected":true}', true],
    ['{"capture_rejected":false}', false],
    ['{"detail":"capture_rejected"}', false],
    ['capture_rejected: true', false],
    ['[{"capture_rejected":true}]', false],
    ['null', false],
  ])('%s marks the capture as rejected: %p', (body, expected) => {
    expect(isCaptureRejected(body)).toBe(expected)
  })

  test('the delay doubles on each retry: 1s, 2s, 4s', () => {
    expect([1, 2, 3].map((retry) => backoffDelayMs(policy, retry))).toEqual([1000, 2000, 4000])
  })

  test('no retry beyond SVC_APP_MAX_RETRIES', () => {
    expect(nextRetryDelayMs(policy, 3, 0, undefined)).toBe(4000)
    expect(nextRetryDelayMs(policy, 4, 0, undefined)).toBeUndefined()
  })

  test('no retry whose wait would end past the overall deadline', () => {
    expect(nextRetryDelayMs(policy, 2, 27_000, undefined)).toBe(2000)
    expect(nextRetryDelayMs(policy, 2, 28_500, undefined)).toBeUndefined()
  })

  test('Retry-After replaces the backoff delay', () => {
    expect(nextRetryDelayMs(policy, 1, 0, 5000)).toBe(5000)
    expect(nextRetryDelayMs(policy, 1, 0, 40_000)).toBeUndefined()
  })

  test('parses Retry-After as seconds or as an HTTP date (RFC 9110 §10.2.3)', () => {
    const now = Date.parse('2026-11-21T10:00:00Z')
    expect(parseRetryAfter('3', now)).toBe(3000)
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:05 GMT', now)).toBe(5000)
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0)
    expect(parseRetryAfter('soon', now)).toBeUndefined()
    expect(parseRetryAfter(null, now)).toBeUndefined()
  })
})
