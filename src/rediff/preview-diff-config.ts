import type postgres from 'postgres'
import { compileCaptureOptions, type DiffConfig } from '../diff/index.ts'
import { diffSignature, signatureSummary } from '../insights/index.ts'
import { prefetched, scanCaptures } from '../store/capture-scan.ts'
import { signatureSummaries } from '../store/signature-summaries.ts'
import type { GateSettings } from '../store/rows.ts'
import { PreviewTally, type DiffConfigPreview } from './preview-tally.ts'
import { rediffCapture, storedKind } from './rediff-capture.ts'
import { TimeSlicer } from './time-slicer.ts'

export interface PreviewRequest {
  readonly gate: Pick<GateSettings, 'id' | 'redacted_fields'>
  /** The candidate, compared with what is stored (made under the gate's diff_config at the time). */
  readonly diffConfig: DiffConfig
  /** created_at from this instant (RFC 3339)... */
  readonly from: string
  /** ...to this one, both included; no end when absent. */
  readonly to?: string
  /** The most recent captures in the window, at most this many. */
  readonly limit: number
}

/**
 * Re-diffs the most recent stored captures of a window with a candidate
 * diff_config and counts what would change (docs/insights.md "Preview"),
 * changing nothing stored: pages of captures read by keyset (bounded in
 * rows and bytes), each compared as ingest would (rediffCapture), with the
 * work cut into slices that yield to the event loop so that the API's
 * other requests are not held up. Signatures after are computed without
 * the gate's cap (nothing is admitted).
 */
export async function previewDiffConfig(sql: postgres.Sql | postgres.ReservedSql, request: PreviewRequest): Promise<DiffConfigPreview> {
  const options = compileCaptureOptions({ diff: request.diffConfig, redactedFields: request.gate.redacted_fields })
  const range = { from: request.from, to: request.to, order: 'desc' as const }
  const next = prefetched(scanCaptures(sql, request.gate.id, range, { rows: 250, bytes: 2 * 1024 * 1024, limit: request.limit }))
  const tally = new PreviewTally()
  const slicer = new TimeSlicer()
  for (;;) {
    const page = await next()
    if (page === undefined) break
    for (const capture of page) {
      const before = storedKind(capture)
      const { comparison } = rediffCapture(capture, options, false)
      const after =
        comparison.kind === 'diff' && capture.template !== null
          ? diffSignature({ method: capture.method, template: capture.template }, comparison.ops)
          : undefined
      tally.add({
        id: capture.id,
        before,
        beforeSignature: before === 'diff' ? capture.signature_id : null,
        after: comparison.kind,
        afterSignature: after?.id ?? null,
        ...(after === undefined ? {} : { summarizeAfter: () => signatureSummary(after) }),
      })
      await slicer.pause()
    }
  }
  const result = tally.result()
  // Signatures that exist only as stored: their summaries from the gate's catalog.
  const known = await signatureSummaries(sql, request.gate.id, result.signatures.filter((s) => s.summary === null).map((s) => s.id))
  return { ...result, signatures: result.signatures.map((s) => (s.summary === null ? { ...s, summary: known.get(s.id) ?? null } : s)) }
}
