import { describe, expect, test } from 'bun:test'
import { headerMapOf } from '../../../../src/proxy/upstream/header-map.ts'

describe('headerMapOf', () => {
  test('canonical names, one value per header, each Set-Cookie kept apart', () => {
    const headers = new Headers()
    headers.append('content-type', 'application/json')
    headers.append('x-request-id', 'abc')
    headers.append('set-cookie', 'a=1')
    headers.append('set-cookie', 'b=2')
    expect(headerMapOf(headers)).toEqual({
      'Content-Type': ['application/json'],
      'X-Request-Id': ['abc'],
      'Set-Cookie': ['a=1', 'b=2'],
    })
  })
})
