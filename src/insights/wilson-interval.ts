/**
 * The Wilson score interval of a proportion (E. B. Wilson, "Probable
 * inference, the law of succession, and statistical inference", JASA
 * 1927): the range of true rates that `successes` out of `trials` is
 * consistent with at the confidence `z` stands for (1.96: 95 %, two-sided).
 * Unlike the normal approximation it stays within [0, 1] and does not
 * shrink to a point at 0 or n successes, so 0 of 10 reads "up to 28 %",
 * not "exactly 0".
 */
export interface Interval {
  readonly low: number
  readonly high: number
}

/** [0, 1] without trials: nothing is known. */
export function wilsonInterval(successes: number, trials: number, z: number): Interval {
  if (!(trials > 0)) return { low: 0, high: 1 }
  const p = Math.min(Math.max(successes / trials, 0), 1)
  const z2 = z * z
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
  const half = (z / (1 + z2 / trials)) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))
  // At 0 and n successes the bound is exactly 0 (or 1); rounding must not move it.
  return {
    low: successes <= 0 ? 0 : Math.max(0, centre - half),
    high: successes >= trials ? 1 : Math.min(1, centre + half),
  }
}
