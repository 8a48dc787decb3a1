import { describe, expect, test } from 'bun:test'
import type { VerdictReport } from '../../../src/api/schemas/verdict-schemas.ts'
import { formatMeasure, verdictTable } from '../../../src/cli/verdict-table.ts'

/** An inconclusive report of 3 requests, with `overrides`. */
function report(overrides: Partial<VerdictReport> = {}): VerdictReport {
  return { verdict: 'inconclusive', requests: 3, live_failures: 0, window: { from: 'a', to: 'b' }, ignore_noise: true, noise_ignored: 0, checks: [], ...overrides }
}

describe('verdictTable', () => {
  test('a headline, then aligned rows with failed checks in capitals', () => {
    const text = verdictTable(
      {
        verdict: 'fail',
        requests: 1234,
        live_failures: 0,
        window: { from: '2026-11-26T10:00:00.000Z', to: '2026-11-26T11:00:00.000Z' },
        ignore_noise: true,
        noise_ignored: 17,
        checks: [
          { name: 'requests', scope: 'gate', value: 1234, threshold: 100, pass: true },
          { name: 'diff_rate', scope: 'gate', value: 0.021, threshold: 0.01, pass: false },
          { name: 'latency_ratio', scope: 'GET /v2/products/{id}', value: 1.125, threshold: 1.5, pass: true },
        ],
      },
      'g1',
    )
    expect(text).toBe(
      [
        'verdict: FAIL  gate g1  1234 requests from 2026-11-26T10:00:00.000Z to 2026-11-26T11:00:00.000Z',
        '',
        'CHECK          SCOPE                  VALUE   THRESHOLD  RESULT',
        'requests       gate                   1234    >= 100     pass',
        'diff_rate      gate                   2.10 %  <= 1.00 %  FAIL',
        'latency_ratio  GET /v2/products/{id}  1.13    <= 1.50    pass',
        '',
        'noise ignored: 17 diffs touched only fields classified noise and are not in diff_rate',
        '',
      ].join('\n'),
    )
  })

  test('with noise counted, the last line says so', () => {
    const text = verdictTable(report({ verdict: 'pass', ignore_noise: false }), 'g1')
    expect(text).toEndWith('\nnoise counted: every diff is in diff_rate (--no-ignore-noise)\n')
  })

  test('an inconclusive verdict says why', () => {
    const text = verdictTable(report({ checks: [{ name: 'requests', scope: 'gate', value: 3, threshold: 100, pass: false }] }), 'g1')
    expect(text).toContain('too few requests to conclude: 3 in the window, min_requests is 100')
  })

  test('captures whose live alone failed are named, since they are in no count', () => {
    const text = verdictTable(report({ requests: 0, live_failures: 120, checks: [{ name: 'requests', scope: 'gate', value: 0, threshold: 100, pass: false }] }), 'g1')
    expect(text).toContain('live failed: 120 captures whose live gave no answer are not in requests (nothing to compare the shadow with)')
    expect(verdictTable(report({ verdict: 'pass' }), 'g1')).not.toContain('live failed')
  })

  test.each([
    ['diff_rate', 0, '0.00 %'],
    ['diff_rate', 0.00001, '<0.01 %'],
    ['error_rate', 1, '100.00 %'],
    ['latency_ratio', 2, '2.00'],
    ['requests', 100, '100'],
  ] as const)('%s %p reads %p', (name, value, text) => {
    expect(formatMeasure(name, value)).toBe(text)
  })
})
