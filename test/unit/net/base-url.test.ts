import { describe, expect, test } from 'bun:test'
import { isBaseUrl, withoutPassword, withoutUserinfo } from '../../../src/net/base-url.ts'

describe('withoutPassword', () => {
  test.each([
    ['http://deploy:s3cret@live.internal:8080/api', 'http://deploy:***@live.internal:8080/api'],
    ['postgres://svc:p%40ss@db:5432/svc', 'postgres://svc:***@db:5432/svc'],
    ['https://token-only@host/', 'https://token-only@host/'],
    ['http://live.internal:8080/a@b', 'http://live.internal:8080/a@b'],
    ['http://127.0.0.1:8081', 'http://127.0.0.1:8081'],
    // A raw password with an `@` in it: masked to the authority's last one.
    ['http://u:SEK@RIT@127.0.0.1:19141/x@y', 'http://u:***@127.0.0.1:19141/x@y'],
  ])('%p is logged as %p', (url, logged) => {
    expect(withoutPassword(url)).toBe(logged)
  })
})

describe('withoutUserinfo', () => {
  test.each([
    [' mysql://u:SEKRIT@h/db', ' mysql://u:***@h/db'],
    ['postgres//u:SEKRIT@h/db', '***@h/db'],
    ['u:SEKRIT@h:5432/db', '***@h:5432/db'],
    ['http://u:SEK@RIT@h', 'http://u:***@h'],
    ['mysql://app:SEKR/IT@db/x', 'mysql://app:***@db/x'],
    ['https://SEKRIT-token@h/', 'https://***@h/'],
    ['http://h:1/', 'http://h:1/'],
  ])('%p is shown as %p', (text, shown) => {
    expect(withoutUserinfo(text)).toBe(shown)
    expect(withoutUserinfo(text)).not.toContain('SEKRIT')
  })
})

describe('isBaseUrl', () => {
  test.each(['http://live:8080', 'https://live/api/', 'http://u:p@live'])('accepts %p', (url) => {
    expect(isBaseUrl(url)).toBe(true)
  })
  test.each(['live:8080', 'ftp://live', 'http://live/?v=2', 'http://live/#x', 'http://'])('refuses %p', (url) => {
    expect(isBaseUrl(url)).toBe(false)
  })
})
