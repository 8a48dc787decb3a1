import { describe, expect, test } from 'bun:test'
import { parse, type TestSuites } from 'junit2json'
import type { VerdictReport } from '../../../src/api/schemas/verdict-schemas.ts'
import { junitReport } from '../../../src/cli/junit-report.ts'

const WINDOW = { from: '2026-11-26T10:00:00.000Z', to: '2026-11-26T11:00:00.000Z' }
const GATE = '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40'

function report(overrides: Partial<VerdictReport> = {}): VerdictReport {
  return {
    verdict: 'fail',
    requests: 500,
    live_failures: 3,
    window: WINDOW,
    ignore_noise: true,
    noise_ignored: 12,
    checks: [
      { name: 'requests', scope: 'gate', value: 500, threshold: 100, pass: true },
      { name: 'diff_rate', scope: 'gate', value: 0.04, threshold: 0.01, pass: false },
      { name: 'error_rate', scope: 'gate', value: 0, threshold: 0.01, pass: true },
      { name: 'latency_ratio', scope: 'GET /v2/products/{id}', value: 1.2, threshold: 1.5, pass: true },
    ],
    ...overrides,
  }
}

async function parsed(xml: string): Promise<TestSuites> {
  return (await parse(xml)) as TestSuites
}

describe('junitReport, read back by a JUnit parser', () => {
  test('one test case per check, the failed one with a failure naming value and threshold', async () => {
    const out = await parsed(junitReport(report(), GATE, new Date('2026-11-26T11:00:05Z')))
    expect(out.tests).toBe(4)
    expect(out.failures).toBe(1)
    const suite = out.testsuite![0]!
    expect(suite.name).toBe(`svc-shadow verdict: gate ${GATE}`)
    expect(suite.tests).toBe(4)
    expect(suite.failures).toBe(1)
    expect(suite.timestamp).toBe('2026-11-26T11:00:05')
    // junit2json reads a numeric-looking value as a number, whatever its types say.
    expect(suite.properties as unknown).toEqual([
      { name: 'verdict', value: 'fail' },
      { name: 'requests', value: 500 },
      { name: 'live_failures', value: 3 },
      { name: 'ignore_noise', value: 'true' },
      { name: 'noise_ignored', value: 12 },
      { name: 'window.from', value: WINDOW.from },
      { name: 'window.to', value: WINDOW.to },
    ])
    expect(suite.testcase!.map((c) => c.name)).toEqual([
      'requests (gate)',
      'diff_rate (gate)',
      'error_rate (gate)',
      'latency_ratio (GET /v2/products/{id})',
    ])
    const failed = suite.testcase!.filter((c) => c.failure !== undefined)
    expect(failed.map((c) => c.name)).toEqual(['diff_rate (gate)'])
    expect(failed[0]!.failure![0]).toEqual({
      type: 'threshold',
      message: 'diff_rate of gate is 4.00 %, required <= 1.00 %',
      inner: 'diff_rate of gate is 4.00 %, required <= 1.00 %',
    })
  })

  test('an inconclusive verdict marks the requests check as an inconclusive failure', async () => {
    const checks = report().checks.map((c) => ({ ...c, pass: true }))
    checks[0] = { name: 'requests', scope: 'gate', value: 12, threshold: 100, pass: false }
    const out = await parsed(junitReport(report({ verdict: 'inconclusive', requests: 12, checks }), GATE, new Date()))
    const failure = out.testsuite![0]!.testcase![0]!.failure![0]!
    expect(failure.type).toBe('inconclusive')
    expect(failure.message).toBe('requests of gate is 12, required >= 100')
  })

  test('templates with XML metacharacters and characters XML cannot hold still give a readable report', async () => {
    const scope = 'GET /a&b/<c>/"d"/\'e\'/\u0001/\uD800x'
    const checks = [{ name: 'latency_ratio' as const, scope, value: 3, threshold: 1.5, pass: false }]
    const out = await parsed(junitReport(report({ checks }), GATE, new Date()))
    const testcase = out.testsuite![0]!.testcase![0]!
    expect(testcase.name).toBe('latency_ratio (GET /a&b/<c>/"d"/\'e\'/\uFFFD/\uFFFDx)')
    expect(testcase.failure![0]!.message).toContain('<c>')
  })

  test('a passing verdict has no failure at all', async () => {
    const checks = report().checks.map((c) => ({ ...c, pass: true }))
    const out = await parsed(junitReport(report({ verdict: 'pass', checks }), GATE, new Date()))
    expect(out.failures).toBe(0)
    expect(out.testsuite![0]!.testcase!.every((c) => c.failure === undefined)).toBe(true)
  })
})
