import { describe, expect, test } from 'bun:test'
import { clientIp } from '../../../../src/api/rate-limit/client-ip.ts'
import { CidrSet, parseCidr } from '../../../../src/net/cidr.ts'

const trusted = new CidrSet(['10.0.0.0/8', '127.0.0.1'].map((c) => parseCidr(c)!))

describe('clientIp (SPEC.md "Client IP for rate limiting")', () => {
  test.each([
    ['an untrusted peer is the key, whatever it forwards', '203.0.113.9', { 'x-forwarded-for': '1.1.1.1' }, '203.0.113.9'],
    ['a trusted peer: the right-most untrusted hop', '10.0.0.1', { 'x-forwarded-for': '1.1.1.1, 2.2.2.2, 10.0.0.7' }, '2.2.2.2'],
    ['a trusted peer with only trusted hops: X-Real-IP', '10.0.0.1', { 'x-forwarded-for': '10.1.1.1', 'x-real-ip': '3.3.3.3' }, '3.3.3.3'],
    ['a trusted peer with nothing forwarded: the peer', '127.0.0.1', {}, '127.0.0.1'],
    ['an IPv4-mapped trusted peer', '::ffff:10.2.3.4', { 'x-forwarded-for': '4.4.4.4' }, '4.4.4.4'],
    ['an untrusted peer cannot use X-Real-IP either', '198.51.100.1', { 'x-real-ip': '5.5.5.5' }, '198.51.100.1'],
  ])('%s', (_, peer, headers, expected) => {
    expect(clientIp(peer, new Headers(headers), trusted)).toBe(expected)
  })
})
