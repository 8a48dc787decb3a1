/**
 * Stage 3, forward shadow: the same request to the shadow, at the same
 * time as live's, its response read whole within the shadow's body bound
 * and the budget. A shadow that fails (a body over the bound included:
 * `too_large`) is a failed side, compared (docs/proxy.md "A hostile shadow");
 * one that refused a connection within the refusal window is not tried.
 */
import { DrainAbortReason } from './background-tasks.ts'
import { MemoryBudgetReason } from '../policy/byte-budget.ts'
import { failedExchange, type CapturedExchange } from '../sinks/capture-sink.ts'
import { toUpstreamError } from '../upstream/upstream-error.ts'
import type { PipelineContext } from './pipeline-context.ts'
import type { PendingComparison } from './pending-comparison.ts'

/** The shadow's side; rejects only when the comparison is abandoned (drain, budget). */
export async function forwardShadow(context: PipelineContext, comparison: PendingComparison): Promise<CapturedExchange> {
  const { shadowRefusals } = context
  const { method, target, headers, body } = comparison.request
  const signal = comparison.exchange
  const started = performance.now()
  if (shadowRefusals.refusedAgo() !== undefined) return failedExchange(context.notAttemptedText, 0, new Date())
  try {
    const response = await context.shadow.send(
      { method, pathAndQuery: target, headers, body, signal },
      context.shadowMaxBytes,
      comparison.reserve,
    )
    shadowRefusals.recordSuccess()
    if (response.kind === 'over-budget') throw new MemoryBudgetReason(context.budget.limit)
    return {
      status: response.status,
      headers: response.headers,
      body: response.body,
      latencyMs: Math.round(performance.now() - started),
      createdAt: new Date(),
    }
  } catch (error) {
    // Shutting down, or out of budget: not a shadow failure, the comparison is abandoned.
    if (error instanceof MemoryBudgetReason || signal.reason instanceof DrainAbortReason || signal.reason instanceof MemoryBudgetReason) {
      throw error
    }
    const failure = toUpstreamError(error, 'shadow', signal)
    if (failure.kind === 'refused') shadowRefusals.recordRefusal()
    return failedExchange(failure.message, Math.round(performance.now() - started), new Date())
  }
}
