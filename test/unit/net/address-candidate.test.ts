import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { parseAddressCandidate } from '../../../src/net/address-candidate.ts'
import { parseIp } from '../../../src/net/ip-address.ts'

describe('parseAddressCandidate', () => {
  test.each([
    ['203.0.113.7', '203.0.113.7'],
    ['203.0.113.7:51234', '203.0.113.7'],
    ['  203.0.113.7:1  ', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['[::ffff:203.0.113.7]:80', '203.0.113.7'],
    ['2001:db8::1', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['[fe80::1%eth0]:8080', 'fe80::1'],
    ['2001:DB8::1', '2001:db8::1'],
  ])('reads %p as the address %p', (text, address) => {
    expect(parseAddressCandidate(text)).toEqual(parseIp(address)!)
  })

  test.each([
    '',
    'unknown',
    '_hidden',
    'example.com',
    'example.com:80',
    '203.0.113.7:',
    '203.0.113.7:http',
    '203.0.113.7:123456',
    '[2001:db8::1',
    '[2001:db8::1]:',
    '[2001:db8::1]x',
    '[203.0.113.7]:80x',
    '2001:db8::1:80:99:1:2:3',
    '1.2.3.4.5:80',
  ])('refuses %p', (text) => {
    expect(parseAddressCandidate(text)).toBeUndefined()
  })

  const ipv4 = fc.ipV4()
  const port = fc.integer({ min: 0, max: 65535 })

  test('an IPv4 address is the same address with any port, bracketed mapped form or both', () => {
    fc.assert(
      fc.property(ipv4, port, (ip, p) => {
        const bare = parseIp(ip)
        expect(parseAddressCandidate(`${ip}:${p}`)).toEqual(bare!)
        expect(parseAddressCandidate(`::ffff:${ip}`)).toEqual(bare!)
        expect(parseAddressCandidate(`[::ffff:${ip}]:${p}`)).toEqual(bare!)
      }),
    )
  })

  test('an IPv6 address is the same address bracketed with any port', () => {
    fc.assert(
      fc.property(fc.ipV6(), port, (ip, p) => {
        expect(parseAddressCandidate(`[${ip}]:${p}`)).toEqual(parseIp(ip)!)
      }),
    )
  })
})
