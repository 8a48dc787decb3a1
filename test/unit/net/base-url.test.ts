import { describe, expect, test } from 'bun:test'
import { isBaseUrl, withoutPassword } from '../../../src/net/base-url.ts'

describe('withoutPassword', () => {
  test.each([
    ['http://deploy:s3cret@live.internal:8080/api', 'http://deploy:***@live.internal:8080/api'],
    ['postgres://svc:p%40ss@db:5432/svc', 'postgres://svc:***@db:5432/svc'],
    ['https://token-only@host/', 'https://token-only@host/'],
    ['http://live.internal:8080/a@b', 'http://live.internal:8080/a@b'],
    ['http://127.0.0.1:8081', 'http://127.0.0.1:8081'],
  ])('%p is logged as %p', (url, logged) => {
    expect(withoutPassword(url)).toBe(logged)
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
