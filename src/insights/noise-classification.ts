import { wilsonInterval } from './wilson-interval.ts'

/**
 * Whether a field's differences between live and the shadow are noise
 * (docs/insights.md "Noise: the classification"):
 *
 * - `noise`: it differs between live and live's own repeat at a rate
 *   comparable to its rate between live and the shadow;
 * - `real`: its live-vs-shadow rate clearly exceeds its noise rate;
 * - `unknown`: not enough noise checks to say either.
 */
export const FIELD_CLASSIFICATIONS = ['noise', 'real', 'unknown'] as const
export type FieldClassification = (typeof FIELD_CLASSIFICATIONS)[number]

/** What a field's classification is read from, over one window and one endpoint. */
export interface FieldEvidence {
  /** The endpoint's captures (live-vs-shadow comparisons). */
  readonly requests: number
  /** Those whose diff holds the field. */
  readonly count: number
  /** The endpoint's noise checks that compared two answers of live. */
  readonly noiseChecks: number
  /** Those whose noise patch holds the field. */
  readonly noiseCount: number
}

/** The thresholds of the rule; NOISE_RULE holds the documented ones. */
export interface NoiseRule {
  /** Fewer noise checks than this: `unknown`, whatever the counts. */
  readonly minNoiseChecks: number
  /** The z of both confidence intervals (1.96: 95 %). */
  readonly z: number
  /** Diffy's relative difference, |a - b| / (a + b), that separates the two rates. */
  readonly relativeThreshold: number
  /** Diffy's absolute difference, a - b as a fraction of the requests, that `real` must also pass. */
  readonly absoluteThreshold: number
}

export const NOISE_RULE: NoiseRule = Object.freeze({
  minNoiseChecks: 10,
  z: 1.96,
  relativeThreshold: 0.2,
  absoluteThreshold: 0.0003,
})

/** (a - b) / (a + b) when a exceeds b, else 0: how much a exceeds b, relative to both. */
function relativeExcess(a: number, b: number): number {
  return a > b ? (a - b) / (a + b) : 0
}

/**
 * Diffy's rule (a field is a real difference when its raw count exceeds
 * its noise count by a relative and an absolute threshold), made to hold
 * under sampling: the two rates are 95 % Wilson intervals rather than
 * point estimates, since noise checks are a sample of a few per second.
 *
 * - `real` when even the lowest diff rate and the highest noise rate the
 *   data allow are apart by both thresholds;
 * - `noise` when even the highest diff rate and the lowest noise rate the
 *   data allow are within the relative threshold;
 * - otherwise, and below `minNoiseChecks`, `unknown`.
 *
 * So a small sample gives `unknown` instead of a wrong call, and the two
 * verdicts can never both hold.
 */
export function classifyField(evidence: FieldEvidence, rule: NoiseRule = NOISE_RULE): FieldClassification {
  const { requests, count, noiseChecks, noiseCount } = evidence
  if (noiseChecks < rule.minNoiseChecks || requests <= 0) return 'unknown'
  const diff = wilsonInterval(count, requests, rule.z)
  const noise = wilsonInterval(noiseCount, noiseChecks, rule.z)
  if (
    diff.low > noise.high &&
    relativeExcess(diff.low, noise.high) > rule.relativeThreshold &&
    diff.low - noise.high > rule.absoluteThreshold
  ) {
    return 'real'
  }
  if (relativeExcess(diff.high, noise.low) <= rule.relativeThreshold) return 'noise'
  return 'unknown'
}
