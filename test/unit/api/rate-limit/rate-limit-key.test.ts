import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { rateLimitKey } from '../../../../src/api/rate-limit/rate-limit-key.ts'
import { parseIp, type IpAddress } from '../../../../src/net/ip-address.ts'

describe('rateLimitKey', () => {
  test.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff::', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%p is counted as %p', (text, key) => {
    expect(rateLimitKey(parseIp(text)!)).toBe(key)
  })

  const v6 = (bytes: number[]): IpAddress => ({ family: 6, bytes: Uint8Array.from(bytes) })
  const half = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 8, maxLength: 8 })
  // A network part that is not ::ffff:0:0/96, which parseIp would have folded to IPv4.
  const network = half.filter((bytes) => bytes.some((b) => b !== 0))

  test('every address of one /64 shares a key', () => {
    fc.assert(
      fc.property(network, half, half, (prefix, a, b) => {
        expect(rateLimitKey(v6([...prefix, ...a]))).toBe(rateLimitKey(v6([...prefix, ...b])))
      }),
    )
  })

  test('addresses of different /64s have different keys', () => {
    fc.assert(
      fc.property(network, network, half, (p, q, host) => {
        fc.pre(p.join() !== q.join())
        expect(rateLimitKey(v6([...p, ...host]))).not.toBe(rateLimitKey(v6([...q, ...host])))
      }),
    )
  })

  test('distinct IPv4 addresses have distinct keys', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.ipV4(), (a, b) => {
        fc.pre(a !== b)
        expect(rateLimitKey(parseIp(a)!)).not.toBe(rateLimitKey(parseIp(b)!))
      }),
    )
  })
})
