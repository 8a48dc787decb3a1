import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { FieldList } from '../../../../src/net/field-list.ts'
import { headerMapOf, headerMapOfRequest } from '../../../../src/proxy/upstream/header-map.ts'
import {
  clientResponseHeaders,
  dropHopByHop,
  HOP_BY_HOP_HEADERS,
  plainAddress,
  shadowRequestHeaders,
  upstreamRequestFields,
  upstreamRequestHeaders,
} from '../../../../src/proxy/policy/forward-headers.ts'

describe('hop-by-hop headers (RFC 9110 §7.6.1)', () => {
  test.each(HOP_BY_HOP_HEADERS.map((name) => [name]))('drops %s', (name) => {
    const headers = new Headers({ [name]: 'x', 'x-kept': '1' })
    dropHopByHop(headers)
    expect(headers.has(name)).toBe(false)
    expect(headers.get('x-kept')).toBe('1')
  })

  test('drops every header named in Connection, case-insensitively', () => {
    const headers = new Headers({ connection: 'X-One, x-two ,close', 'x-one': '1', 'x-two': '2', 'x-three': '3' })
    dropHopByHop(headers)
    expect([...headers.keys()]).toEqual(['x-three'])
  })

  test('passes over a Connection option that is not a field name instead of throwing', () => {
    const headers = new Headers({ connection: 'keep-alive, bad token, x-one, (x)', 'x-one': '1', 'x-two': '2' })
    dropHopByHop(headers)
    expect([...headers.keys()]).toEqual(['x-two'])
    const response = clientResponseHeaders(new Headers({ connection: 'bad token', 'x-kept': '1' }))
    expect([...response.keys()]).toEqual(['x-kept'])
  })
})

describe('upstream request headers', () => {
  const forwarded = { clientAddress: '10.0.0.7', proto: 'http', peerTrusted: false }
  const trusted = { ...forwarded, peerTrusted: true }
  /** What a client (or a proxy in front) may claim. */
  const claimed = {
    host: 'proxy.local:8080',
    'x-forwarded-for': '198.51.100.1',
    'x-forwarded-host': 'shop.example',
    'x-forwarded-proto': 'https',
  }

  test('adds X-Forwarded-For/-Host/-Proto and leaves Host to fetch', () => {
    const headers = upstreamRequestHeaders(new Headers({ host: 'shop.example:8080', accept: 'application/json' }), forwarded)
    expect(headers.get('host')).toBeNull()
    expect(headers.get('x-forwarded-for')).toBe('10.0.0.7')
    expect(headers.get('x-forwarded-host')).toBe('shop.example:8080')
    expect(headers.get('x-forwarded-proto')).toBe('http')
    expect(headers.get('accept')).toBe('application/json')
  })

  test('from a peer that is not a trusted proxy: X-Forwarded-Host and -Proto are what the proxy saw; X-Forwarded-For is appended to', () => {
    const headers = upstreamRequestHeaders(new Headers(claimed), forwarded)
    expect(headers.get('x-forwarded-host')).toBe('proxy.local:8080')
    expect(headers.get('x-forwarded-proto')).toBe('http')
    // The right-most entry is the peer the proxy saw, whoever it is.
    expect(headers.get('x-forwarded-for')).toBe('198.51.100.1, 10.0.0.7')
  })

  test('from a peer that is not a trusted proxy and sent no Host, a claimed X-Forwarded-Host is dropped', () => {
    const headers = upstreamRequestHeaders(new Headers({ 'x-forwarded-host': 'evil.example' }), forwarded)
    expect(headers.has('x-forwarded-host')).toBe(false)
  })

  test('from a trusted proxy: its X-Forwarded-Host and -Proto are passed on, X-Forwarded-For appended to', () => {
    const headers = upstreamRequestHeaders(new Headers(claimed), trusted)
    expect(headers.get('x-forwarded-for')).toBe('198.51.100.1, 10.0.0.7')
    expect(headers.get('x-forwarded-host')).toBe('shop.example')
    expect(headers.get('x-forwarded-proto')).toBe('https')
  })

  test('RFC 7239 Forwarded is dropped from a peer that is not a trusted proxy, passed on from one that is', () => {
    const spoofed = { ...claimed, forwarded: 'for=198.51.100.1;host=evil.example;proto=https' }
    expect(upstreamRequestHeaders(new Headers(spoofed), forwarded).has('forwarded')).toBe(false)
    expect(upstreamRequestHeaders(new Headers(spoofed), trusted).get('forwarded')).toBe(spoofed.forwarded)
  })

  test('from a trusted proxy that set neither, they are set as for anyone', () => {
    const headers = upstreamRequestHeaders(new Headers({ host: 'proxy.local' }), trusted)
    expect(headers.get('x-forwarded-host')).toBe('proxy.local')
    expect(headers.get('x-forwarded-proto')).toBe('http')
  })

  test.each([
    ['shadow'],
    ['live'],
    ['shadow, shadow'],
  ])('a client’s X-Svc-Mode: %s never reaches live, trusted peer or not', (value) => {
    for (const peer of [forwarded, trusted]) {
      const live = upstreamRequestHeaders(new Headers({ host: 'a', 'X-Svc-Mode': value }), peer)
      expect(live.has('x-svc-mode')).toBe(false)
      expect(shadowRequestHeaders(live).get('x-svc-mode')).toBe('shadow')
    }
  })

  test('never modifies the incoming headers', () => {
    const incoming = new Headers({ connection: 'keep-alive', host: 'a', 'x-svc-mode': 'shadow', 'x-forwarded-proto': 'https' })
    upstreamRequestHeaders(incoming, forwarded)
    expect(incoming.get('connection')).toBe('keep-alive')
    expect(incoming.get('host')).toBe('a')
    expect(incoming.get('x-svc-mode')).toBe('shadow')
    expect(incoming.get('x-forwarded-proto')).toBe('https')
  })

  test('X-Svc-Mode: shadow goes on the shadow copy only', () => {
    const live = upstreamRequestHeaders(new Headers({ host: 'a' }), forwarded)
    const shadow = shadowRequestHeaders(live)
    expect(shadow.get('x-svc-mode')).toBe('shadow')
    expect(live.has('x-svc-mode')).toBe(false)
  })
})

describe("the raw server's fields (FieldList) get the same rules as Headers", () => {
  const name = fc.constantFrom(
    'host',
    'accept',
    'connection',
    'keep-alive',
    'te',
    'upgrade',
    'proxy-authorization',
    'x-forwarded-for',
    'x-forwarded-host',
    'x-forwarded-proto',
    'forwarded',
    'x-svc-mode',
    'x-a',
    'cookie',
    'set-cookie',
    'x-request-id',
    '__proto__',
  )
  // Connection values that list fields of the set above (in any case), plain ones, and empty ones.
  const value = fc.oneof(
    fc.constant(''),
    fc.stringMatching(/^[a-z0-9.:]{1,10}$/),
    fc.array(name, { minLength: 1, maxLength: 3 }).map((names) => names.map((each, i) => (i % 2 === 0 ? each.toUpperCase() : each)).join(' , ')),
  )
  // The raw server takes exactly one Host (request-head.ts): a request with two goes to Bun.serve.
  const fields = fc
    .array(fc.tuple(name, value), { maxLength: 10 })
    .map((pairs) => pairs.filter(([n], i) => n !== 'host' || pairs.findIndex(([m]) => m === 'host') === i))
  test('for any fields, peer and address', () => {
    fc.assert(
      fc.property(
        fields,
        fc.boolean(),
        fc.option(fc.constantFrom('10.0.0.7', '::1'), { nil: undefined }),
        (pairs, peerTrusted, clientAddress) => {
          const forwarded = { clientAddress, proto: 'http', peerTrusted }
          const headers = new Headers()
          for (const [n, v] of pairs) headers.append(n, v)
          const fields = new FieldList(
            pairs.map(([n]) => n),
            pairs.map(([, v]) => v),
          )
          expect(headerMapOfRequest(upstreamRequestFields(fields, forwarded))).toEqual(headerMapOf(upstreamRequestHeaders(headers, forwarded)))
        },
      ),
    )
  })
})

describe('client response headers', () => {
  test('returns the same object when there is nothing to drop', () => {
    const headers = new Headers({ 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': '42' })
    expect(clientResponseHeaders(headers)).toBe(headers)
  })

  test('drops hop-by-hop fields and keeps Content-Encoding and Content-Length', () => {
    const upstream = new Headers({ 'transfer-encoding': 'chunked', connection: 'x-a', 'x-a': '1', 'content-encoding': 'br' })
    const headers = clientResponseHeaders(upstream)
    expect([...headers.keys()]).toEqual(['content-encoding'])
    expect(upstream.has('transfer-encoding')).toBe(true)
  })
})

test('plainAddress strips the IPv4-mapped IPv6 prefix only', () => {
  expect(plainAddress('::ffff:127.0.0.1')).toBe('127.0.0.1')
  expect(plainAddress('::1')).toBe('::1')
  expect(plainAddress('10.1.2.3')).toBe('10.1.2.3')
})
