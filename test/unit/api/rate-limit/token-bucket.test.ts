import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { TokenBuckets } from '../../../../src/api/rate-limit/token-bucket.ts'

describe('TokenBuckets', () => {
  test('allows the burst, then refuses with a Retry-After of at least one second', () => {
    let now = 0
    const buckets = new TokenBuckets({ perMinute: 3, now: () => now })
    expect([1, 2, 3].map(() => buckets.take('a').allowed)).toEqual([true, true, true])
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 20 })
    now = 20_000
    expect(buckets.take('a').allowed).toBe(true)
  })

  test('keys are independent', () => {
    const buckets = new TokenBuckets({ perMinute: 1, now: () => 0 })
    expect(buckets.take('a').allowed).toBe(true)
    expect(buckets.take('b').allowed).toBe(true)
    expect(buckets.take('a').allowed).toBe(false)
  })

  test('sweeps only full buckets, so memory stays bounded without forgetting debts', () => {
    let now = 0
    const buckets = new TokenBuckets({ perMinute: 60, now: () => now, sweepAbove: 2 })
    buckets.take('a')
    buckets.take('b')
    now = 120_000
    buckets.take('c')
    expect(buckets.size).toBe(1)
  })

  test('over any span, grants at most the burst plus the refill', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 300 }),
        (perMinute, gaps) => {
          let now = 0
          const buckets = new TokenBuckets({ perMinute, now: () => now })
          let granted = 0
          for (const gap of gaps) {
            now += gap
            if (buckets.take('k').allowed) granted++
          }
          expect(granted).toBeLessThanOrEqual(Math.floor(perMinute + (now * perMinute) / 60_000) + 1)
        },
      ),
    )
  })
})
