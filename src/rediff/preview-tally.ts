import type { Comparison } from '../diff/index.ts'

/** previewDiffConfig's answer (docs/reference/api.md "DiffConfigPreview"). */
export interface DiffConfigPreview {
  examined: number
  diffs_before: number
  diffs_after: number
  silenced: number
  surfaced: number
  /** `summary`: its one line (docs/insights.md "Summaries"); null for one the catalog no longer holds. */
  signatures: Array<{ id: string; summary: string | null; count_before: number; count_after: number }>
  examples: { silenced: string[]; surfaced: string[] }
}

/** Signatures a preview lists, those with the most captures before or after. */
export const MAX_PREVIEW_SIGNATURES = 100
/** Example request ids of each kind of change, the most recent first. */
export const MAX_PREVIEW_EXAMPLES = 10

/** One capture's comparison as stored and as the candidate config makes it. */
export interface PreviewItem {
  readonly id: string
  readonly before: Comparison['kind']
  readonly beforeSignature: string | null
  readonly after: Comparison['kind']
  readonly afterSignature: string | null
  /** The after signature's summary, asked for once per signature. */
  readonly summarizeAfter?: () => string
}

/**
 * Counts a preview (docs/insights.md "Preview"), capture by capture, most
 * recent first: a `diff` before and a `match` after is silenced, the
 * reverse surfaced; errors (a side failed) are examined and never change.
 * Diff signatures are counted on both sides; the list keeps the
 * MAX_PREVIEW_SIGNATURES with the most captures on either side, ties by
 * id. Pure.
 */
export class PreviewTally {
  private examined = 0
  private diffsBefore = 0
  private diffsAfter = 0
  private readonly silenced: string[] = []
  private readonly surfaced: string[] = []
  private silencedCount = 0
  private surfacedCount = 0
  private readonly signatures = new Map<string, { before: number; after: number; summary: string | null }>()

  add(item: PreviewItem): void {
    this.examined++
    if (item.before === 'diff') {
      this.diffsBefore++
      if (item.beforeSignature !== null) this.signature(item.beforeSignature).before++
    }
    if (item.after === 'diff') {
      this.diffsAfter++
      if (item.afterSignature !== null) {
        const counts = this.signature(item.afterSignature)
        counts.after++
        counts.summary ??= item.summarizeAfter?.() ?? null
      }
    }
    if (item.before === 'diff' && item.after === 'match') {
      if (this.silencedCount++ < MAX_PREVIEW_EXAMPLES) this.silenced.push(item.id)
    } else if (item.before === 'match' && item.after === 'diff') {
      if (this.surfacedCount++ < MAX_PREVIEW_EXAMPLES) this.surfaced.push(item.id)
    }
  }

  private signature(id: string): { before: number; after: number; summary: string | null } {
    let counts = this.signatures.get(id)
    if (counts === undefined) {
      counts = { before: 0, after: 0, summary: null }
      this.signatures.set(id, counts)
    }
    return counts
  }

  result(): DiffConfigPreview {
    const signatures = [...this.signatures]
      .map(([id, counts]) => ({ id, summary: counts.summary, count_before: counts.before, count_after: counts.after }))
      .sort((a, b) => Math.max(b.count_before, b.count_after) - Math.max(a.count_before, a.count_after) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, MAX_PREVIEW_SIGNATURES)
    return {
      examined: this.examined,
      diffs_before: this.diffsBefore,
      diffs_after: this.diffsAfter,
      silenced: this.silencedCount,
      surfaced: this.surfacedCount,
      signatures,
      examples: { silenced: [...this.silenced], surfaced: [...this.surfaced] },
    }
  }
}
