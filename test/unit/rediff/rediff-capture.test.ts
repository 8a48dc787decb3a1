import { describe, expect, test } from 'bun:test'
import { compileCaptureOptions, type DiffConfig } from '../../../src/diff/index.ts'
import { rediffCapture, storedKind } from '../../../src/rediff/rediff-capture.ts'
import type { ScannedCapture } from '../../../src/store/capture-scan.ts'

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value))
const headers = { 'Content-Type': ['application/json'] }
const options = (over: Partial<DiffConfig> = {}) =>
  compileCaptureOptions({ diff: { ignored_fields: [], included_fields: [], float_tolerance: 0, sort_arrays: false, ...over }, redactedFields: ['body.secret'] })

function capture(live: unknown, shadow: unknown, repeat?: unknown, over: Partial<ScannedCapture> = {}): ScannedCapture {
  return {
    id: crypto.randomUUID(),
    at: '2026-11-26 10:00:00.123456+00',
    method: 'GET',
    template: '/x',
    has_diff: true,
    signature_id: null,
    noise_result: null,
    noise_signature_id: null,
    live_status: 200,
    live_headers: headers,
    live_body: json(live),
    shadow_status: 200,
    shadow_headers: headers,
    shadow_body: json(shadow),
    repeat_status: repeat === undefined ? null : 200,
    repeat_headers: repeat === undefined ? null : headers,
    repeat_body: repeat === undefined ? null : json(repeat),
    ...over,
  }
}

describe('rediffCapture', () => {
  test('compares the stored responses under the given config, redacted fields left out', () => {
    const stored = capture({ a: 1, t: 'x', secret: '[REDACTED]' }, { a: 1, t: 'y', secret: '[REDACTED]' })
    expect(rediffCapture(stored, options()).comparison).toEqual({ kind: 'diff', ops: [{ op: 'replace', path: '/body/t', value: 'y' }] })
    expect(rediffCapture(stored, options({ ignored_fields: ['body.t'] })).comparison).toEqual({ kind: 'match' })
  })

  test('a failed side is an error whatever the config', () => {
    const failed = capture({ a: 1 }, 'shadow: timed out', undefined, { shadow_status: 0, shadow_headers: {}, shadow_body: new TextEncoder().encode('shadow: timed out') })
    expect(rediffCapture(failed, options({ ignored_fields: ['body'] })).comparison.kind).toBe('error')
    expect(storedKind(failed)).toBe('error')
  })

  test('the noise check is made again when there is a repeat, and left out on request', () => {
    const stored = capture({ t: 1, id: 'a' }, { t: 1, id: 'b' }, { t: 2, id: 'a' })
    expect(rediffCapture(stored, options()).noise).toEqual({ result: 'noisy', ops: [{ op: 'replace', path: '/body/t', value: 2 }] })
    expect(rediffCapture(stored, options({ ignored_fields: ['body.t'] })).noise).toEqual({ result: 'quiet', ops: [] })
    expect(rediffCapture(stored, options(), false).noise).toBeUndefined()
    expect(rediffCapture(capture({ a: 1 }, { a: 1 }), options()).noise).toBeUndefined()
  })

  test.each([
    [{ has_diff: true }, 'diff'],
    [{ has_diff: false }, 'match'],
    [{ live_status: 0 }, 'error'],
  ] as const)('storedKind(%p) is %s', (over, kind) => {
    expect(storedKind({ live_status: 200, shadow_status: 200, has_diff: true, ...over })).toBe(kind)
  })
})
