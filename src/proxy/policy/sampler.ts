/**
 * Sampling (SVC_APP_SAMPLING_RATE: the fraction of eligible requests shadowed,
 * 0 to 1; docs/proxy.md "Which requests are shadowed"). Each request is decided
 * independently.
 */

/** A source of uniform random numbers in [0, 1), like `Math.random`. */
export type RandomSource = () => number

/** Decides one request: true when it is sampled in (shadowed). */
export type Sampler = () => boolean

/**
 * Creates a sampler for `rate`. A request is sampled in when
 * `random() < rate`. Rates 1 and 0 are decided without drawing a number,
 * so they are exact whatever the source returns: 1 always, 0 never.
 *
 * The rate is validated where the configuration is read; an invalid rate
 * here is a programming error, hence a plain `RangeError`.
 *
 * @param rate fraction in [0, 1]
 * @param random @default Math.random
 */
export function createSampler(rate: number, random: RandomSource = Math.random): Sampler {
  if (!(rate >= 0 && rate <= 1)) {
    throw new RangeError(`sampling rate must be a number from 0 to 1, got ${rate}`)
  }
  if (rate === 1) return () => true
  if (rate === 0) return () => false
  return () => random() < rate
}
