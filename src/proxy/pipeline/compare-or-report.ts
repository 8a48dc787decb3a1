/**
 * Stage 5, compare or report: the capture goes to the sink, which compares
 * and logs it (standalone, the module) or reports it to the API (API
 * mode), once the sink's own copy fits the budget. `runComparison` is the
 * whole background half of a shadowed request, collect (with the noise
 * check's repeat beside it, `repeat-live.ts`) then this: every
 * way it ends is one outcome (compared, reported, or skipped with a
 * reason), and the slot, the bytes and the in-flight count are given back
 * exactly once.
 */
import { splitTarget } from '../../net/request-target.ts'
import { MemoryBudgetReason } from '../policy/byte-budget.ts'
import type { Capture, SinkOutcome } from '../sinks/capture-sink.ts'
import { DrainAbortReason } from './background-tasks.ts'
import { collect } from './collect.ts'
import { skip, type PipelineContext } from './pipeline-context.ts'
import type { PendingComparison } from './pending-comparison.ts'
import { startLiveRepeat } from './repeat-live.ts'

/** Hands the capture to the sink; `signal` aborts only at the drain. */
export async function compareOrReport(
  context: PipelineContext,
  comparison: PendingComparison,
  capture: Capture,
  signal: AbortSignal,
): Promise<SinkOutcome> {
  const { sink } = context
  const bodyBytes =
    (comparison.request.body?.byteLength ?? 0) +
    capture.live.body.byteLength +
    capture.shadow.body.byteLength +
    (capture.liveRepeat?.body.byteLength ?? 0)
  // The sink's own copy (the API reporter's encoded report) counts too.
  const held = sink.heldCopyBytes?.(bodyBytes) ?? 0
  return comparison.reservation.add(held) ? await sink.submit(capture, signal) : { kind: 'skipped', reason: 'memory_budget' }
}

/** The background half of a shadowed request, run as a task (`background-tasks.ts`). Never rejects. */
export async function runComparison(context: PipelineContext, comparison: PendingComparison, signal: AbortSignal): Promise<void> {
  const { method, target } = comparison.request
  // Started with the comparison: the repeat waits for live's first answer, not for the shadow's.
  const repeat = context.noise === undefined ? undefined : startLiveRepeat(context.noise, comparison, signal)
  let outcome: SinkOutcome
  try {
    const collected = await collect(context, comparison)
    if (typeof collected !== 'string' && repeat !== undefined) {
      const liveRepeat = await repeat.result
      if (liveRepeat !== undefined) collected.liveRepeat = liveRepeat
    }
    outcome = typeof collected === 'string' ? { kind: 'skipped', reason: collected } : await compareOrReport(context, comparison, collected, signal)
  } catch (error) {
    const overBudget = error instanceof MemoryBudgetReason || comparison.exchange.reason instanceof MemoryBudgetReason
    outcome = { kind: 'skipped', reason: overBudget ? 'memory_budget' : 'report_failed' }
    if (!overBudget && !(signal.reason instanceof DrainAbortReason)) {
      context.warnings.warn('comparison abandoned', { 'request.path': splitTarget(target).path, error })
    }
  } finally {
    if (repeat !== undefined) await repeat.close()
    comparison.reservation.release()
    context.callbacks.release()
    context.inFlight.dec()
  }
  if (outcome.kind === 'skipped') skip(context, outcome.reason, method, target)
}
