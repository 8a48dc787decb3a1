import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { AllowedHosts, hostOfHeader, parseHostPattern } from '../../../src/net/allowed-hosts.ts'

const list = (...entries: string[]) => new AllowedHosts(entries.map((e) => parseHostPattern(e)!))

describe('parseHostPattern', () => {
  test.each([
    ['localhost', { kind: 'name', name: 'localhost' }],
    ['Hub.Example.COM', { kind: 'name', name: 'hub.example.com' }],
    ['example.com.', { kind: 'name', name: 'example.com' }],
    ['svc_api', { kind: 'name', name: 'svc_api' }],
    ['*.example.com', { kind: 'subdomains', suffix: '.example.com' }],
    ['127.0.0.1', { kind: 'ip' }],
    ['::1', { kind: 'ip' }],
    ['[::1]', { kind: 'ip' }],
  ])('accepts %p', (entry, expected) => {
    expect(parseHostPattern(entry)).toMatchObject(expected)
  })

  test.each([
    '*',
    '*.',
    '*.*.example.com',
    'a.*.example.com',
    '*.127.0.0.1',
    'localhost:8080',
    '127.0.0.1:80',
    '[::1]:80',
    'http://example.com',
    'example.com/',
    'exa mple.com',
    '-bad.example.com',
    'a..b',
    '1.2.3',
    '256.1.1.1',
    'fe80::1%eth0',
    `${'a'.repeat(64)}.com`,
  ])('refuses %p', (entry) => {
    expect(parseHostPattern(entry)).toBeUndefined()
  })
})

describe('hostOfHeader', () => {
  test.each([
    ['localhost', 'name'],
    ['LOCALHOST:8090', 'name'],
    ['127.0.0.1:8070', 'ip'],
    ['[::1]:8070', 'ip'],
    ['[::1]', 'ip'],
  ])('reads %p as a %s', (value, kind) => {
    expect(hostOfHeader(value)?.kind).toBe(kind as 'name' | 'ip')
  })

  test.each([null, '', ':80', 'a b', 'a:b', 'a:80:80', '[::1', '[127.0.0.1]', '[fe80::1%25eth0]', '::1', 'host:123456', 'x@y', 'a%2eb'])(
    'refuses %p',
    (value) => {
      expect(hostOfHeader(value)).toBeUndefined()
    },
  )
})

describe('AllowedHosts', () => {
  const allowed = list('127.0.0.1', 'localhost', '::1', '*.example.com')

  test.each([
    'localhost',
    'localhost:8070',
    'LocalHost:1',
    'localhost.',
    '127.0.0.1',
    '127.0.0.1:8090',
    '[::1]:8090',
    '[0:0:0:0:0:0:0:1]',
    'hub.example.com',
    'a.b.example.com:443',
  ])('allows %p', (host) => {
    expect(allowed.allows(host)).toBe(true)
  })

  test.each([
    null,
    '',
    'evil.test',
    'evil.test:8070',
    'localhost.evil.test',
    'example.com',
    'notexample.com',
    'example.com.evil.test',
    '127.0.0.2',
    '127.1',
    '[::2]',
    'localhost:8070@evil.test',
  ])('refuses %p', (host) => {
    expect(allowed.allows(host)).toBe(false)
  })

  test('an IPv4 address allows its IPv4-mapped IPv6 form', () => {
    expect(list('10.0.0.1').allows('[::ffff:10.0.0.1]:80')).toBe(true)
  })

  test('a name is allowed under any port and case, and no other name is', () => {
    const one = list('svc.internal')
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 65535 }), fc.boolean(), (port, upper) => {
        const name = upper ? 'SVC.Internal' : 'svc.internal'
        return one.allows(`${name}:${port}`) && !one.allows(`x${name}:${port}`) && !one.allows(`${name}x:${port}`)
      }),
    )
  })

  test('what is not parsed as a host is never allowed', () => {
    const any = list('*.a')
    fc.assert(
      fc.property(fc.string(), (value) => {
        if (hostOfHeader(value) === undefined) return !any.allows(value)
        return true
      }),
    )
  })
})
