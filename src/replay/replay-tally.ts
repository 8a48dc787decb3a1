import { SKIP_REASONS, type SkipReason } from './replay-plan.ts'

/**
 * Why a capture could not be replayed and stored, defined once:
 * - `unreadable`: its export line is not a capture (nothing was sent);
 * - `not_stored`: the candidate answered (or failed), but the API refused
 *   or never took the result, after its retries.
 */
export const FAILURE_REASONS = ['unreadable', 'not_stored'] as const
export type FailureReason = (typeof FAILURE_REASONS)[number]

/**
 * Every stored capture of the replay, accounted for once (docs/ci.md
 * "Replay"): replayed (stored on the replay gate; among them, those with
 * a difference and those where the candidate failed), skipped by reason,
 * or failed by reason, with the first failure's text of each reason.
 */
export class ReplayTally {
  replayed = 0
  diffs = 0
  candidateErrors = 0
  readonly skipped: Record<SkipReason, number> = Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number>
  readonly failed: Record<FailureReason, number> = Object.fromEntries(FAILURE_REASONS.map((r) => [r, 0])) as Record<FailureReason, number>
  readonly firstFailure: Partial<Record<FailureReason, string>> = {}

  get done(): number {
    return this.replayed + this.skippedTotal + this.failedTotal
  }

  get skippedTotal(): number {
    return SKIP_REASONS.reduce((sum, reason) => sum + this.skipped[reason], 0)
  }

  get failedTotal(): number {
    return FAILURE_REASONS.reduce((sum, reason) => sum + this.failed[reason], 0)
  }

  recordReplayed(hasDiff: boolean, candidateFailed: boolean): void {
    this.replayed++
    if (hasDiff) this.diffs++
    if (candidateFailed) this.candidateErrors++
  }

  recordSkipped(reason: SkipReason): void {
    this.skipped[reason]++
  }

  recordFailed(reason: FailureReason, text: string): void {
    this.failed[reason]++
    this.firstFailure[reason] ??= text
  }

  /** The closing account, one line per kind, as `bun run replay` prints it. */
  summary(): string {
    const by = (counts: Record<string, number>) =>
      Object.entries(counts)
        .filter(([, n]) => n > 0)
        .map(([reason, n]) => `${reason} ${n}`)
        .join(', ')
    const lines = [
      `replay: ${this.done} captures: ${this.replayed} replayed, ${this.skippedTotal} skipped, ${this.failedTotal} failed`,
      `  replayed: ${this.diffs} with a difference, ${this.candidateErrors} where the candidate failed`,
    ]
    if (this.skippedTotal > 0) lines.push(`  skipped: ${by(this.skipped)}`)
    if (this.failedTotal > 0) {
      lines.push(`  failed: ${by(this.failed)}`)
      for (const reason of FAILURE_REASONS) {
        const text = this.firstFailure[reason]
        if (text !== undefined) lines.push(`  first ${reason}: ${text}`)
      }
    }
    return lines.join('\n') + '\n'
  }
}
