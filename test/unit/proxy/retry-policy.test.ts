import { describe, expect, test } from 'bun:test'
import { backoffDelayMs, isRetryableStatus, nextRetryDelayMs, parseRetryAfter } from '../../../src/proxy/retry-policy.ts'

const policy = { maxRetries: 3, initialDelayMs: 1000, deadlineMs: 30_000 }

describe('retry policy (SPEC.md "Proxy, API mode")', () => {
  test.each([
    [500, true],
    [502, true],
    [503, true],
    [429, true],
    [400, false],
    [401, false],
    [404, false],
    [409, false],
    [201, false],
  ])('status %d retryable: %p', (status, expected) => {
    expect(isRetryableStatus(status)).toBe(expected)
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
