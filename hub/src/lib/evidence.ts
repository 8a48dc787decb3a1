import { formatCount, formatRate } from './format.ts'
import type { SuggestionEvidence, SuggestionReason } from './types.ts'

/** How a value shape reads in a sentence (docs/insights.md "Suggestions"). */
const SHAPES: Readonly<Record<string, string>> = { timestamp: 'timestamps', uuid: 'UUIDs', token: 'random tokens' }

/**
 * Why a field is suggested, in one line: how often it differed between
 * two answers of live (noise) or what its values look like (volatile),
 * and how often it differed between live and the shadow.
 *
 *   differs in 12 of 14 noise checks (85.7%) and in 40 of 45 captures (88.9%)
 *   values look like timestamps (30 sampled); differs in 44 of 45 captures (97.8%)
 */
export function evidenceText(reason: SuggestionReason, e: SuggestionEvidence): string {
  const captures = `${formatCount(e.count)} of ${formatCount(e.requests)} ${e.requests === 1 ? 'capture' : 'captures'} (${formatRate(e.rate)})`
  if (reason === 'noise' || e.shape === null) {
    const checks = `${formatCount(e.noise_count)} of ${formatCount(e.noise_checks)} noise ${e.noise_checks === 1 ? 'check' : 'checks'}`
    const rate = e.noise_rate === null ? '' : ` (${formatRate(e.noise_rate)})`
    return `differs in ${checks}${rate} and in ${captures}`
  }
  const shape = SHAPES[e.shape] ?? e.shape
  return `values look like ${shape} (${formatCount(e.samples)} sampled); differs in ${captures}`
}
