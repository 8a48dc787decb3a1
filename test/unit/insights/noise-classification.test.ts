import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { classifyField, NOISE_RULE, type FieldClassification } from '../../../src/insights/index.ts'

const evidence = (count: number, requests: number, noiseCount: number, noiseChecks: number) => ({ count, requests, noiseCount, noiseChecks })

describe('classifyField', () => {
  test.each<[string, number, number, number, number, FieldClassification]>([
    // what, diffs, requests, noisy, noise checks, classification
    ['a timestamp: differs everywhere, in the repeats too', 1000, 1000, 30, 30, 'noise'],
    ['a request id, at ten checks (the fewest that decide)', 500, 500, 10, 10, 'noise'],
    ['a field half the time both ways', 500, 1000, 50, 100, 'noise'],
    ['a price that changed, never in a repeat', 200, 1000, 0, 30, 'real'],
    ['a changed field on every capture, with a repeat once in a while as noisy', 1000, 1000, 2, 40, 'real'],
    ['a regression on top of noise: 100 % against 40 %', 2000, 2000, 40, 100, 'real'],
    ['too few noise checks, however clear the counts', 1000, 1000, 9, 9, 'unknown'],
    ['no noise checks at all', 1000, 1000, 0, 0, 'unknown'],
    ['a rare diff that 30 quiet checks cannot rule out as noise', 50, 1000, 0, 30, 'unknown'],
    ['noisy half the time in few checks, everywhere against the shadow', 100, 100, 6, 12, 'unknown'],
    ['rates alike but too little data to call them alike', 5, 10, 5, 10, 'unknown'],
    ['a difference within Diffy\'s absolute threshold is not real', 2, 100_000, 0, 100_000, 'unknown'],
  ])('%s: %i/%i against %i/%i is %s', (_what, count, requests, noiseCount, noiseChecks, expected) => {
    expect(classifyField(evidence(count, requests, noiseCount, noiseChecks))).toBe(expected)
  })

  const field = fc
    .record({ requests: fc.integer({ min: 1, max: 50_000 }), noiseChecks: fc.integer({ min: 0, max: 5_000 }) })
    .chain(({ requests, noiseChecks }) =>
      fc.record({
        requests: fc.constant(requests),
        count: fc.integer({ min: 1, max: requests }),
        noiseChecks: fc.constant(noiseChecks),
        noiseCount: fc.integer({ min: 0, max: noiseChecks }),
      }),
    )

  test('unknown below the minimum of noise checks, whatever the counts', () => {
    fc.assert(
      fc.property(field, (e) => {
        if (e.noiseChecks < NOISE_RULE.minNoiseChecks) expect(classifyField(e)).toBe('unknown')
      }),
    )
  })

  test('more diffs never turn real into something else, fewer never turn noise into something else', () => {
    fc.assert(
      fc.property(field, (e) => {
        const here = classifyField(e)
        if (here === 'real' && e.count < e.requests) expect(classifyField({ ...e, count: e.count + 1 })).toBe('real')
        if (here === 'noise' && e.count > 1) expect(classifyField({ ...e, count: e.count - 1 })).toBe('noise')
      }),
    )
  })

  test('more noise never makes a field real, less never makes it noise', () => {
    fc.assert(
      fc.property(field, (e) => {
        const here = classifyField(e)
        if (here !== 'real' && e.noiseCount < e.noiseChecks) expect(classifyField({ ...e, noiseCount: e.noiseCount + 1 })).not.toBe('real')
        if (here !== 'noise' && e.noiseCount > 0) expect(classifyField({ ...e, noiseCount: e.noiseCount - 1 })).not.toBe('noise')
      }),
    )
  })

  test('the same rate both ways with plenty of data is noise; a rate far above a quiet repeat is real', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.2, max: 1, noNaN: true }), fc.integer({ min: 2000, max: 20_000 }), (p, n) => {
        const k = Math.max(1, Math.round(p * n))
        expect(classifyField(evidence(k, n, k, n))).toBe('noise')
        expect(classifyField(evidence(k, n, 0, n))).toBe('real')
      }),
    )
  })
})
