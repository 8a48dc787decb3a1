import { describe, expect, test } from 'bun:test'
import { exceeds } from '../../../../src/proxy/policy/body-bound.ts'

describe('exceeds', () => {
  test('0 means unlimited', () => {
    expect(exceeds(10 ** 12, 0)).toBe(false)
    expect(exceeds(11, 10)).toBe(true)
    expect(exceeds(10, 10)).toBe(false)
  })
})
