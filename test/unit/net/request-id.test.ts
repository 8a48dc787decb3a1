import { describe, expect, test } from 'bun:test'
import { requestIdOf } from '../../../src/net/request-id.ts'

describe('requestIdOf', () => {
  test('keeps a client X-Request-ID that is a UUID, lower-cased', () => {
    expect(requestIdOf(new Headers({ 'x-request-id': '0B9D6C1E-4F7A-4C3E-9D1B-2A6F8E5C7D40' }))).toBe(
      '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40',
    )
  })

  test('keeps a UUID of another version (a v7, time-ordered)', () => {
    const v7 = '01936b2e-1c4d-7a3b-9f2e-5d6c7b8a9e0f'
    expect(requestIdOf(new Headers({ 'x-request-id': v7 }))).toBe(v7)
  })

  test('generates a v4 UUID otherwise, for the nil and the max UUID too', () => {
    for (const headers of [
      new Headers(),
      new Headers({ 'x-request-id': 'not-a-uuid' }),
      new Headers({ 'x-request-id': '00000000-0000-0000-0000-000000000000' }),
      new Headers({ 'x-request-id': 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF' }),
    ]) {
      expect(requestIdOf(headers)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    }
  })
})
