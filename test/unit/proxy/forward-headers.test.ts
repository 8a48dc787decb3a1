import { describe, expect, test } from 'bun:test'
import {
  clientResponseHeaders,
  dropHopByHop,
  HOP_BY_HOP_HEADERS,
  plainAddress,
  shadowRequestHeaders,
  upstreamRequestHeaders,
} from '../../../src/proxy/forward-headers.ts'

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
  const forwarded = { clientAddress: '10.0.0.7', proto: 'http' }

  test('adds X-Forwarded-For/-Host/-Proto and leaves Host to fetch', () => {
    const headers = upstreamRequestHeaders(new Headers({ host: 'shop.example:8080', accept: 'application/json' }), forwarded)
    expect(headers.get('host')).toBeNull()
    expect(headers.get('x-forwarded-for')).toBe('10.0.0.7')
    expect(headers.get('x-forwarded-host')).toBe('shop.example:8080')
    expect(headers.get('x-forwarded-proto')).toBe('http')
    expect(headers.get('accept')).toBe('application/json')
  })

  test('appends to an existing X-Forwarded-For and keeps an existing -Host and -Proto', () => {
    const headers = upstreamRequestHeaders(
      new Headers({ host: 'proxy', 'x-forwarded-for': '198.51.100.1', 'x-forwarded-host': 'shop.example', 'x-forwarded-proto': 'https' }),
      forwarded,
    )
    expect(headers.get('x-forwarded-for')).toBe('198.51.100.1, 10.0.0.7')
    expect(headers.get('x-forwarded-host')).toBe('shop.example')
    expect(headers.get('x-forwarded-proto')).toBe('https')
  })

  test('never modifies the incoming headers', () => {
    const incoming = new Headers({ connection: 'keep-alive', host: 'a' })
    upstreamRequestHeaders(incoming, forwarded)
    expect(incoming.get('connection')).toBe('keep-alive')
    expect(incoming.get('host')).toBe('a')
  })

  test('X-Svc-Mode: shadow goes on the shadow copy only', () => {
    const live = upstreamRequestHeaders(new Headers({ host: 'a' }), forwarded)
    const shadow = shadowRequestHeaders(live)
    expect(shadow.get('x-svc-mode')).toBe('shadow')
    expect(live.has('x-svc-mode')).toBe(false)
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
