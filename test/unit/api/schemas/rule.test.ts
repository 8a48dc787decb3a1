import { describe, expect, test } from 'bun:test'
import { type } from 'arktype'
import { rule } from '../../../../src/api/schemas/rule.ts'
import { createRequestBody } from '../../../../src/api/schemas/request-schemas.ts'
import { makeCaptureBodies } from '../../../bench/api-bench/capture-bodies.ts'

const even = type('number').narrow(rule((n: number) => (n % 2 === 0 ? undefined : 'an even number')))

describe('rule', () => {
  test('lets arktype check a valid value with its boolean pass, without the traversal context', () => {
    // arktype decides this from the predicate's declared parameters.
    expect(rule(() => undefined).length).toBe(1)
    expect(even.internal.rootApplyStrategy).toBe('allows')
    expect(createRequestBody.internal.rootApplyStrategy).toBe('allows')
  })

  test('reports what a failing value must be, as ctx.mustBe does', () => {
    const mustBe = type('number').narrow((n, ctx) => (n % 2 === 0 ? true : ctx.mustBe('an even number')))
    expect(even(4)).toBe(4)
    const failed = even(3)
    expect(failed instanceof type.errors && failed.summary).toBe('must be an even number (was 3)')
    const before = mustBe(3)
    expect(before instanceof type.errors && before.summary).toBe('must be an even number (was 3)')
  })

  test("createRequest's body: every rule broken is named, each at its path", () => {
    const body = JSON.parse(makeCaptureBodies({ count: 1 }).bodies[0]!) as Record<string, unknown> & { live_response: object }
    const failed = createRequestBody({
      ...body,
      body: 'a',
      path: 'a\0',
      headers: { 'Bad Name': ['x'] },
      diff: { content: [{ op: 'add', path: '/nope', value: 1 }] },
      live_response: { ...body.live_response, status_code: 42, latency_ms: -1, created_at: 'yesterday' },
    })
    if (!(failed instanceof type.errors)) throw new Error('accepted')
    const messages = failed.map((error) => `${error.propString} must be ${error.expected}`).sort()
    // The patch op is a union: its error names each branch's.
    expect(messages.find((m) => m.startsWith('diff.content[0]'))).toContain(
      'diff.content[0].path must be a JSON Pointer into {status, headers, body} such as /body/items/0',
    )
    expect(messages.filter((m) => !m.startsWith('diff.'))).toEqual([
      'body must be base64-encoded',
      'headers must be header names that are tokens (RFC 9110)',
      'live_response.created_at must be an RFC 3339 date-time (years 1000 to 9999)',
      `live_response.latency_ms must be an integer from 0 to ${Number.MAX_SAFE_INTEGER} (ms)`,
      'live_response.status_code must be an HTTP status from 100 to 599, or 0 for an upstream that gave no response',
      'path must be text without NUL characters',
    ])
  })
})
