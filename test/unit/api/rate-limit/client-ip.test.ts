import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { clientIp } from '../../../../src/api/rate-limit/client-ip.ts'
import { rateLimitKey } from '../../../../src/api/rate-limit/rate-limit-key.ts'
import { CidrSet, parseCidr } from '../../../../src/net/cidr.ts'

const trusted = new CidrSet(['10.0.0.0/8', '127.0.0.1', 'fd00::/8'].map((c) => parseCidr(c)!))

function keyOf(peer: string, headers: Record<string, string>): string | undefined {
  const ip = clientIp(peer, new Headers(headers), trusted)
  return ip && rateLimitKey(ip)
}

describe('clientIp (README "Decisions", rate limiting)', () => {
  test.each([
    ['an untrusted peer is the key, whatever it forwards', '203.0.113.9', { 'x-forwarded-for': '1.1.1.1' }, '203.0.113.9'],
    ['a trusted peer: the right-most untrusted hop', '10.0.0.1', { 'x-forwarded-for': '1.1.1.1, 2.2.2.2, 10.0.0.7' }, '2.2.2.2'],
    ['a trusted peer with only trusted hops: X-Real-IP', '10.0.0.1', { 'x-forwarded-for': '10.1.1.1', 'x-real-ip': '3.3.3.3' }, '3.3.3.3'],
    ['a trusted peer with nothing forwarded: the peer', '127.0.0.1', {}, '127.0.0.1'],
    ['an IPv4-mapped trusted peer', '::ffff:10.2.3.4', { 'x-forwarded-for': '4.4.4.4' }, '4.4.4.4'],
    ['an untrusted peer cannot use X-Real-IP either', '198.51.100.1', { 'x-real-ip': '5.5.5.5' }, '198.51.100.1'],
    ['an IPv4-mapped untrusted peer is its IPv4 address', '::ffff:198.51.100.1', {}, '198.51.100.1'],
    ['a hop with a port is the hop without it', '10.0.0.1', { 'x-forwarded-for': '2.2.2.2:4711' }, '2.2.2.2'],
    ['a bracketed IPv6 hop with a port is its /64', '10.0.0.1', { 'x-forwarded-for': '[2001:db8:0:1::9]:4711' }, '2001:db8:0:1::/64'],
    ['an IPv4-mapped hop is its IPv4 address', '10.0.0.1', { 'x-forwarded-for': '::ffff:2.2.2.2' }, '2.2.2.2'],
    ['a trusted hop written with a port is still trusted', '10.0.0.1', { 'x-forwarded-for': '2.2.2.2, 10.0.0.7:80' }, '2.2.2.2'],
    ['a trusted hop in IPv4-mapped form is still trusted', '10.0.0.1', { 'x-forwarded-for': '2.2.2.2, ::ffff:10.0.0.7' }, '2.2.2.2'],
    ['a hop that is not an IP is skipped', '10.0.0.1', { 'x-forwarded-for': '2.2.2.2, unknown' }, '2.2.2.2'],
    ['no IP among the hops: X-Real-IP', '10.0.0.1', { 'x-forwarded-for': 'unknown, _proxy', 'x-real-ip': '3.3.3.3:99' }, '3.3.3.3'],
    ['an X-Real-IP that is not an IP: the peer', '10.0.0.1', { 'x-real-ip': 'not-an-ip' }, '10.0.0.1'],
    ['an IPv6 client is keyed by its /64', 'fd00::1', { 'x-forwarded-for': '2001:db8:a:b:c:d:e:f' }, '2001:db8:a:b::/64'],
    ['an IPv6 peer is keyed by its /64', '2001:db8:a:b::1', {}, '2001:db8:a:b::/64'],
  ])('%s', (_, peer, headers, expected) => {
    expect(keyOf(peer, headers)).toBe(expected)
  })

  test('a peer that is not an IP has no client address', () => {
    expect(clientIp('', new Headers({ 'x-forwarded-for': '2.2.2.2' }), trusted)).toBeUndefined()
  })

  test('behind a trusted proxy, whatever the client adds to the headers it stays in its own bucket', () => {
    const junk = fc.oneof(
      fc.string(),
      fc.ipV4(),
      fc.ipV4().map((ip) => `${ip}:1`),
      fc.ipV6().map((ip) => `[${ip}]:2`),
    )
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 0, max: 65535 }), fc.array(junk, { maxLength: 4 }), fc.string(), (ip, port, spoofed, realIp) => {
        fc.pre(!trusted.has(ip))
        const forms = [ip, `${ip}:${port}`, `::ffff:${ip}`, `[::ffff:${ip}]:${port}`]
        for (const form of forms) {
          // The trusted proxy appends what it saw after whatever the client sent.
          const forwarded = [...spoofed.map((s) => s.replace(/,/g, '')), form].join(', ')
          expect(keyOf('10.0.0.1', { 'x-forwarded-for': forwarded, 'x-real-ip': realIp })).toBe(ip)
        }
      }),
    )
  })

  test('an X-Real-IP that is not an IP never becomes a key', () => {
    fc.assert(
      fc.property(fc.string(), (realIp) => {
        const key = keyOf('10.0.0.1', { 'x-real-ip': realIp })
        expect(key === '10.0.0.1' || /^[\d.]+$|::\/64$/.test(key!)).toBe(true)
      }),
    )
  })
})
