import { describe, expect, test } from 'bun:test'
import { noiseCheckOf } from '../../../src/api/noise-check.ts'
import { compileCaptureOptions } from '../../../src/diff/index.ts'

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value))
const response = (status: number, body: unknown, headers: Record<string, string[]> = { 'Content-Type': ['application/json'] }) => ({
  status,
  headers,
  body: typeof body === 'string' ? new TextEncoder().encode(body) : json(body),
})
const options = compileCaptureOptions({
  diff: { ignored_fields: ['body.ignored'], included_fields: [], float_tolerance: 0.01, sort_arrays: false },
  redactedFields: ['body.secret'],
})

describe('noiseCheckOf', () => {
  test.each([
    ['the same answer', { a: 1 }, { a: 1 }, 'quiet', []],
    ['an ignored field, a redacted one and a number within tolerance', { a: 1, ignored: 1, secret: 'x', n: 1 }, { a: 1, ignored: 2, secret: 'y', n: 1.005 }, 'quiet', []],
    ['a differing id', { id: 'a', a: 1 }, { id: 'b', a: 1 }, 'noisy', [{ op: 'replace', path: '/body/id', value: 'b' }]],
  ])('%s is %s', (_what, live, repeat, result, ops) => {
    const check = noiseCheckOf(response(200, live), response(200, repeat), options)
    expect(check.result).toBe(result as 'quiet' | 'noisy')
    expect(check.ops).toEqual(ops as never)
  })

  test('a failed side is an error with no ops', () => {
    expect(noiseCheckOf(response(200, { a: 1 }), response(0, 'live: timed out after 5s', {}), options)).toMatchObject({ result: 'error', ops: [] })
    expect(noiseCheckOf(response(0, 'live: connection refused', {}), response(200, { a: 1 }), options)).toMatchObject({ result: 'error', ops: [] })
  })

  test('the repeat comes back redacted for storage, its headers too', () => {
    const check = noiseCheckOf(response(200, { secret: 'a' }), response(200, { secret: 'b' }, { 'Content-Type': ['application/json'], Authorization: ['Bearer t'] }), options)
    expect(JSON.parse(new TextDecoder().decode(check.repeat.body))).toEqual({ secret: '[REDACTED]' })
    expect(check.repeat.headers.Authorization).toEqual(['[REDACTED]'])
  })
})
