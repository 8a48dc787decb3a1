import { describe, expect, test } from 'bun:test'
import { errorText } from '../../../src/log/index.ts'

describe('errorText', () => {
  test('a plain Error is its message', () => {
    expect(errorText(new Error('connection refused'))).toBe('connection refused')
  })

  test('other error classes are prefixed with their name', () => {
    expect(errorText(new TypeError('x is not a function'))).toBe('TypeError: x is not a function')
  })

  test('causes follow, joined as Go wraps errors', () => {
    const error = new Error('report failed', {
      cause: new Error('POST /gates/1/requests', { cause: 'ECONNRESET' }),
    })
    expect(errorText(error)).toBe('report failed: POST /gates/1/requests: ECONNRESET')
  })

  test('a cycle of causes ends', () => {
    const a = new Error('a')
    const b = new Error('b', { cause: a })
    a.cause = b
    expect(errorText(a)).toBe('a: b: a: b: a: b')
  })

  test('an empty message falls back to the name', () => {
    expect(errorText(new Error(''))).toBe('Error')
  })

  test('never includes the stack', () => {
    expect(errorText(new Error('x'))).not.toContain(' at ')
  })
})
