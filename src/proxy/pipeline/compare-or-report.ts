/**
 * Stage 5, compare or report: the capture goes to the sink, which compares
 * and logs it (standalone, the module) or reports it to the API (API
 * mode), once the sink's own copy fits the budget. `PendingComparison`
 * calls it once both sides are in, and turns every way the comparison
 * ends into one outcome (compared, reported, or skipped with a reason).
 */
import type { Capture, SinkOutcome } from '../sinks/capture-sink.ts'
import type { PipelineContext } from './pipeline-context.ts'
import type { PendingComparison } from './pending-comparison.ts'

/**
 * Hands the capture to the sink; `signal` aborts only at the drain. As the
 * sink answers: at once when it compares, later when it reports.
 */
export function compareOrReport(
  context: PipelineContext,
  comparison: PendingComparison,
  capture: Capture,
  signal: AbortSignal,
): SinkOutcome | Promise<SinkOutcome> {
  const { sink } = context
  const bodyBytes =
    (comparison.request.body?.byteLength ?? 0) +
    capture.live.body.byteLength +
    capture.shadow.body.byteLength +
    (capture.liveRepeat?.body.byteLength ?? 0)
  // The sink's own copy (the API reporter's encoded report) counts too.
  const held = sink.heldCopyBytes?.(bodyBytes) ?? 0
  return comparison.reservation.add(held) ? sink.submit(capture, signal) : OVER_BUDGET
}

/** The outcome of a comparison whose bytes the budget cannot hold. */
export const OVER_BUDGET: SinkOutcome = { kind: 'skipped', reason: 'memory_budget' }
