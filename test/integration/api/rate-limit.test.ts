import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

// The limiter never touches the database, so one backend covers it.
describe('rate-limit keys behind a trusted proxy', () => {
  let t: TestApi
  beforeAll(async () => {
    t = await startTestApi('pglite', { SVC_APP_RATE_LIMIT: '2', SVC_APP_TRUSTED_PROXIES: '127.0.0.1, ::1' })
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t?.stop())

  const as = (headers: Record<string, string>) => t.call('GET', '/config', undefined, headers).then((res) => res.status)

  test('a client cannot get a fresh bucket by varying its port or the form of its address', async () => {
    expect(await as({ 'x-forwarded-for': '203.0.113.1:1000' })).toBe(200)
    expect(await as({ 'x-forwarded-for': '203.0.113.1:1001' })).toBe(200)
    const variants: Array<Record<string, string>> = [
      { 'x-forwarded-for': '203.0.113.1:1002' },
      { 'x-forwarded-for': '::ffff:203.0.113.1' },
      { 'x-forwarded-for': '[::ffff:203.0.113.1]:80' },
      { 'x-forwarded-for': '203.0.113.1, 127.0.0.1:5555' },
      { 'x-forwarded-for': '203.0.113.1, not-an-address' },
      { 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '203.0.113.1:1003' },
    ]
    for (const headers of variants) expect(await as(headers)).toBe(429)
  })

  test('an IPv6 client cannot get a fresh bucket by rotating addresses within its /64', async () => {
    expect(await as({ 'x-forwarded-for': '2001:db8:5:6::1' })).toBe(200)
    expect(await as({ 'x-forwarded-for': '[2001:db8:5:6::2]:443' })).toBe(200)
    expect(await as({ 'x-forwarded-for': '2001:db8:5:6:ffff:ffff:ffff:ffff' })).toBe(429)
    expect(await as({ 'x-forwarded-for': '2001:db8:5:7::1' })).toBe(200)
  })

  test('an X-Real-IP that is not an address is not a bucket of its own: the proxy\'s is used', async () => {
    expect(await as({ 'x-real-ip': 'garbage-1' })).toBe(200)
    expect(await as({ 'x-real-ip': 'garbage-2' })).toBe(200)
    expect(await as({ 'x-real-ip': 'garbage-3' })).toBe(429)
    expect(await as({})).toBe(429)
  })
})

describe('SVC_APP_RATE_LIMIT_EXEMPT', () => {
  test('a client in the allowance is never limited; others still are', async () => {
    const t = await startTestApi('pglite', { SVC_APP_RATE_LIMIT: '2', SVC_APP_RATE_LIMIT_EXEMPT: '127.0.0.0/8, ::1' })
    try {
      const statuses = []
      for (let i = 0; i < 10; i++) statuses.push((await t.call('GET', '/config')).status)
      expect(statuses).toEqual(Array(10).fill(200))
    } finally {
      await t.stop()
    }
  }, DATABASE_HOOK_TIMEOUT_MS)

  test('behind a trusted proxy, the forwarded client is what is matched, in any of its forms', async () => {
    const t = await startTestApi('pglite', {
      SVC_APP_RATE_LIMIT: '2',
      SVC_APP_TRUSTED_PROXIES: '127.0.0.1, ::1',
      SVC_APP_RATE_LIMIT_EXEMPT: '10.20.0.0/16',
    })
    try {
      const as = (forwarded: string) => t.call('GET', '/config', undefined, { 'x-forwarded-for': forwarded }).then((res) => res.status)
      const forms = ['10.20.1.1', '10.20.1.1:4711', '::ffff:10.20.1.1', '[::ffff:10.20.3.4]:80']
      const exempt = []
      for (let i = 0; i < 3; i++) for (const form of forms) exempt.push(await as(form))
      expect(exempt).toEqual(Array(12).fill(200))
      // The trusted proxy itself is not in the allowance: its own requests are limited.
      expect([await as('203.0.113.9'), await as('203.0.113.9'), await as('203.0.113.9')]).toEqual([200, 200, 429])
      expect([(await t.call('GET', '/config')).status, (await t.call('GET', '/config')).status, (await t.call('GET', '/config')).status]).toEqual([200, 200, 429])
    } finally {
      await t.stop()
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
})
