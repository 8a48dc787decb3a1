import { describe, expect, test } from 'bun:test'
import { evidenceText } from '../../../hub/src/lib/evidence.ts'
import type { SuggestionEvidence } from '../../../hub/src/lib/types.ts'

const base: SuggestionEvidence = { requests: 45, count: 40, rate: 40 / 45, noise_checks: 14, noise_count: 12, noise_rate: 12 / 14, shape: null, samples: 0 }

describe('evidenceText', () => {
  test('noise: the noise checks, then the captures', () => {
    expect(evidenceText('noise', base)).toBe('differs in 12 of 14 noise checks (85.7%) and in 40 of 45 captures (88.9%)')
  })

  test('volatile: the shape of the values, then the captures', () => {
    const e = { ...base, count: 44, rate: 44 / 45, noise_checks: 0, noise_count: 0, noise_rate: null, shape: 'timestamp', samples: 30 }
    expect(evidenceText('volatile', e)).toBe('values look like timestamps (30 sampled); differs in 44 of 45 captures (97.8%)')
    expect(evidenceText('volatile', { ...e, shape: 'uuid' })).toStartWith('values look like UUIDs')
    // A shape this hub does not know reads as itself.
    expect(evidenceText('volatile', { ...e, shape: 'ulid' })).toStartWith('values look like ulid')
  })

  test('singulars and a missing noise rate', () => {
    expect(evidenceText('noise', { ...base, requests: 1, count: 1, rate: 1, noise_checks: 1, noise_count: 0, noise_rate: null })).toBe(
      'differs in 0 of 1 noise check and in 1 of 1 capture (100%)',
    )
  })
})
