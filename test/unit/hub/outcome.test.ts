import { describe, expect, test } from 'bun:test'
import { classifyBytes } from '../../../hub/src/lib/body.ts'
import { comparisonOutcome, failureText } from '../../../hub/src/lib/outcome.ts'
import type { PatchOp, ResponsePayload } from '../../../hub/src/lib/types.ts'

const response = (status_code: number): ResponsePayload => ({
  id: '00000000-0000-4000-8000-000000000000',
  status_code,
  headers: {},
  body: '',
  latency_ms: 10,
  created_at: '2025-06-01T00:00:00Z',
})
const detail = (live: number, shadow: number, content: PatchOp[] = []) => ({
  live_response: response(live),
  shadow_response: response(shadow),
  diff: { content },
})

describe('comparisonOutcome', () => {
  test('an empty patch between two answers is a match', () => {
    expect(comparisonOutcome(detail(200, 200))).toEqual({ kind: 'match' })
  })

  test('a patch is a diff, whatever the statuses', () => {
    expect(comparisonOutcome(detail(200, 500, [{ op: 'replace', path: '/status', value: 500 }]))).toEqual({ kind: 'diff', ops: 1 })
    expect(comparisonOutcome(detail(200, 0, [{ op: 'replace', path: '/body', value: 'x' }]))).toEqual({ kind: 'diff', ops: 1 })
  })

  // Regression: a shadow that timed out was shown as "identical" / "No difference".
  test('status 0 with an empty patch is a failed side, not a match', () => {
    expect(comparisonOutcome(detail(200, 0))).toEqual({ kind: 'error', failed: ['shadow'] })
    expect(comparisonOutcome(detail(0, 200))).toEqual({ kind: 'error', failed: ['live'] })
    expect(comparisonOutcome(detail(0, 0))).toEqual({ kind: 'error', failed: ['live', 'shadow'] })
  })
})

describe('failureText', () => {
  const enc = (s: string) => new TextEncoder().encode(s)
  test('the recorded error text, trimmed', () => {
    expect(failureText(classifyBytes(enc('  dial tcp 10.0.0.7:8080: connect: connection refused\n')))).toBe(
      'dial tcp 10.0.0.7:8080: connect: connection refused',
    )
  })
  test('no text: "no response"', () => {
    expect(failureText(classifyBytes(new Uint8Array()))).toBe('no response')
    expect(failureText(classifyBytes(new Uint8Array([0xff, 0xfe, 0x00])))).toBe('no response')
  })
  test('long text is cut', () => {
    const text = failureText(classifyBytes(enc('x'.repeat(1000))))
    expect(text.length).toBe(301)
    expect(text.endsWith('…')).toBe(true)
  })
})
