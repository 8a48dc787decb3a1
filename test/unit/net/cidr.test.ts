import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { CidrSet, parseCidr } from '../../../src/net/cidr.ts'
import { parseIp } from '../../../src/net/ip-address.ts'

describe('parseIp', () => {
  test.each([
    ['127.0.0.1', 4],
    ['::1', 6],
    ['2001:db8::8a2e:370:7334', 6],
    ['::ffff:10.1.2.3', 4],
    ['fe80::1%eth0', 6],
    ['::', 6],
  ])('parses %p as IPv%p', (text, family) => {
    expect(parseIp(text)?.family).toBe(family as 4 | 6)
  })

  test.each(['', '1.2.3', '1.2.3.4.5', '256.0.0.1', '01.2.3.4', 'a::b::c', '1:2:3:4:5:6:7:8:9', 'x'])(
    'rejects %p',
    (text) => {
      expect(parseIp(text)).toBeUndefined()
    },
  )
})

describe('CidrSet', () => {
  test.each([
    ['10.0.0.0/8', '10.255.1.2', true],
    ['10.0.0.0/8', '11.0.0.1', false],
    ['192.168.1.0/24', '::ffff:192.168.1.77', true],
    ['127.0.0.1', '127.0.0.1', true],
    ['127.0.0.1', '127.0.0.2', false],
    ['2001:db8::/32', '2001:db8:ffff::1', true],
    ['2001:db8::/32', '2001:db9::1', false],
    ['10.0.0.0/8', '2001:db8::1', false],
    ['172.16.0.0/12', '172.31.255.255', true],
    ['172.16.0.0/12', '172.32.0.0', false],
    ['0.0.0.0/0', '8.8.8.8', true],
  ])('%p contains %p: %p', (cidr, ip, expected) => {
    expect(new CidrSet([parseCidr(cidr)!]).has(ip)).toBe(expected)
  })

  test.each(['10.0.0.0/33', '10.0.0.0/-1', 'abc/8', '10.0.0.0/8/1', '::/129', '10.0.0.0/'])(
    'rejects the network %p',
    (text) => {
      expect(parseCidr(text)).toBeUndefined()
    },
  )

  test('an IPv4 /n network holds exactly the addresses sharing its first n bits', () => {
    const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))
    fc.assert(
      fc.property(ipv4, ipv4, fc.integer({ min: 0, max: 32 }), (a, b, prefix) => {
        const toInt = (t: number[]) => ((t[0]! << 24) | (t[1]! << 16) | (t[2]! << 8) | t[3]!) >>> 0
        const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0
        const expected = (toInt(a) & mask) === (toInt(b) & mask)
        const set = new CidrSet([parseCidr(`${a.join('.')}/${prefix}`)!])
        expect(set.has(b.join('.'))).toBe(expected)
      }),
    )
  })
})
