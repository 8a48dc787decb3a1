import { describe, expect, test } from 'bun:test'
import {
  DEFAULT_THRESHOLDS,
  evaluateVerdict,
  failsLatencyCheck,
  type EndpointLatency,
  type Verdict,
  type VerdictFacts,
  type VerdictThresholds,
} from '../../../src/verdict/index.ts'

const T: VerdictThresholds = { max_diff_rate: 0.05, max_error_rate: 0.02, max_latency_ratio: 1.5, min_requests: 100 }

function facts(requests: number, diffs = 0, shadowErrors = 0, endpoints: EndpointLatency[] = [], noiseOnlyDiffs = 0): VerdictFacts {
  return { requests, liveFailures: 0, diffs, noiseOnlyDiffs, shadowErrors, endpoints }
}

function endpoint(method: string, template: string, live: number | null, shadow: number | null): EndpointLatency {
  return { method, template, livePercentile95: live, shadowPercentile95: shadow }
}

describe('evaluateVerdict', () => {
  // [case, facts, verdict, the checks that fail as name@scope]
  const cases: Array<[string, VerdictFacts, Verdict, string[]]> = [
    ['a clean window passes', facts(1000), 'pass', []],
    ['exactly min_requests is enough', facts(100), 'pass', []],
    ['one capture short of min_requests is inconclusive', facts(99), 'inconclusive', ['requests@gate']],
    ['an empty window is inconclusive, its rates 0', facts(0), 'inconclusive', ['requests@gate']],
    ['too few captures stay inconclusive even when a rate fails', facts(10, 10, 10), 'inconclusive', ['requests@gate', 'diff_rate@gate', 'error_rate@gate']],
    ['a diff rate at the threshold passes', facts(1000, 50), 'pass', []],
    ['a diff rate above the threshold fails', facts(1000, 51), 'fail', ['diff_rate@gate']],
    ['an error rate at the threshold passes', facts(1000, 0, 20), 'pass', []],
    ['an error rate above the threshold fails', facts(1000, 0, 21), 'fail', ['error_rate@gate']],
    ['both rates above fail both', facts(1000, 100, 100), 'fail', ['diff_rate@gate', 'error_rate@gate']],
    [
      'an endpoint slower than the ratio fails on its own scope',
      facts(1000, 0, 0, [endpoint('GET', '/a', 100, 150), endpoint('GET', '/b', 100, 151)]),
      'fail',
      ['latency_ratio@GET /b'],
    ],
    ['a faster shadow passes', facts(1000, 0, 0, [endpoint('GET', '/a', 100, 20)]), 'pass', []],
    ['two sub-millisecond sides compare as equals', facts(1000, 0, 0, [endpoint('GET', '/a', 0, 0)]), 'pass', []],
    ['latencies under 5 ms count as 5: 1 against 2 ms, 2 against 5 ms pass', facts(1000, 0, 0, [endpoint('GET', '/a', 1, 2), endpoint('GET', '/b', 2, 5)]), 'pass', []],
    ['a 2 ms live against a 9 ms shadow is a ratio of 1.8', facts(1000, 0, 0, [endpoint('GET', '/a', 2, 9)]), 'fail', ['latency_ratio@GET /a']],
    ['an endpoint without shadow latencies is not checked', facts(1000, 0, 0, [endpoint('GET', '/a', 10, null)]), 'pass', []],
    ['an endpoint without live latencies is not checked', facts(1000, 0, 0, [endpoint('POST', '/a', null, 900)]), 'pass', []],
  ]

  test.each(cases)('%s', (_name, input, verdict, failing) => {
    const outcome = evaluateVerdict(input, T)
    expect(outcome.verdict).toBe(verdict)
    expect(outcome.requests).toBe(input.requests)
    expect(outcome.checks.filter((c) => !c.pass).map((c) => `${c.name}@${c.scope}`)).toEqual(failing)
  })

  test('lists the gate checks first, then one latency check per endpoint in template and method order', () => {
    const outcome = evaluateVerdict(
      facts(400, 8, 2, [endpoint('POST', '/b', 10, 10), endpoint('GET', '/b', 10, 30), endpoint('GET', '/a', 8, 10)]),
      T,
    )
    expect(outcome.checks).toEqual([
      { name: 'requests', scope: 'gate', value: 400, threshold: 100, pass: true },
      { name: 'diff_rate', scope: 'gate', value: 0.02, threshold: 0.05, pass: true },
      { name: 'error_rate', scope: 'gate', value: 0.005, threshold: 0.02, pass: true },
      { name: 'latency_ratio', scope: 'GET /a', value: 1.25, threshold: 1.5, pass: true },
      { name: 'latency_ratio', scope: 'GET /b', value: 3, threshold: 1.5, pass: false },
      { name: 'latency_ratio', scope: 'POST /b', value: 1, threshold: 1.5, pass: true },
    ])
    expect(outcome.verdict).toBe('fail')
  })

  test('failsLatencyCheck: the latency check on two latencies, the hub\'s "slower"', () => {
    expect(failsLatencyCheck(100, 151, 1.5)).toBe(true)
    expect(failsLatencyCheck(100, 150, 1.5)).toBe(false)
    // Under 5 ms both count as 5: jitter, not the candidate.
    expect(failsLatencyCheck(1, 7, 1.5)).toBe(false)
    expect(failsLatencyCheck(2, 9, 1.5)).toBe(true)
    expect(failsLatencyCheck(null, 900, 1.5)).toBe(false)
  })

  test('the built-in defaults conclude at 100 captures with 1 % of diffs and errors', () => {
    expect(evaluateVerdict(facts(100, 1, 1), DEFAULT_THRESHOLDS).verdict).toBe('pass')
    expect(evaluateVerdict(facts(100, 2), DEFAULT_THRESHOLDS).verdict).toBe('fail')
    expect(evaluateVerdict(facts(99), DEFAULT_THRESHOLDS).verdict).toBe('inconclusive')
  })

  // [case, diffs, noise-only diffs, ignore noise, diff_rate, noiseIgnored, verdict]
  test.each([
    ['noise-only diffs are left out of diff_rate by default', 80, 40, undefined, 0.04, 40, 'pass'],
    ['ignore_noise false counts every diff', 80, 40, false, 0.08, 0, 'fail'],
    ['no noise-only diffs: nothing left out', 80, 0, true, 0.08, 0, 'fail'],
    ['never more left out than there are diffs', 10, 25, true, 0, 10, 'pass'],
  ] as const)('%s', (_name, diffs, noiseOnly, ignoreNoise, diffRate, noiseIgnored, verdict) => {
    const outcome = evaluateVerdict(facts(1000, diffs, 0, [], noiseOnly), T, ignoreNoise === undefined ? undefined : { ignoreNoise })
    expect(outcome.checks[1]).toMatchObject({ name: 'diff_rate', value: diffRate })
    expect(outcome.noiseIgnored).toBe(noiseIgnored)
    expect(outcome.verdict).toBe(verdict)
  })
})
