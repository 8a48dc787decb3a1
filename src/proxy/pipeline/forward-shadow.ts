/**
 * Stage 3, forward shadow: the same request to the shadow, at the same
 * time as live's, its response read whole within the shadow's body bound
 * and the budget. A shadow that fails (a body over the bound included:
 * `too_large`) is a failed side, compared (docs/proxy.md "A hostile shadow");
 * one known to be down (it refused a connection and has not answered
 * since, `refusal-window.ts`) is not tried.
 * With callbacks: on our HTTP/1.1 client the comparison is told from the
 * shadow socket's callback that read the response's end (docs/proxy.md
 * "The raw server").
 */
import type { AbortLike } from '../../async/abort-flag.ts'
import { DrainAbortReason } from './background-tasks.ts'
import { MemoryBudgetReason } from '../policy/byte-budget.ts'
import { failedExchange, type CapturedExchange } from '../sinks/capture-sink.ts'
import type { ExchangeOutcome, WholeResponse } from '../upstream/upstream-client.ts'
import { toUpstreamError, type UpstreamError } from '../upstream/upstream-error.ts'
import type { PipelineContext } from './pipeline-context.ts'
import type { AdmittedRequest } from './pending-comparison.ts'

/** What the shadow's side tells its comparison (`PendingComparison`), once. */
export interface ShadowSideWatcher {
  readonly request: AdmittedRequest
  /** Aborted when the comparison is abandoned: the exchange listens to it. */
  readonly exchange: AbortLike
  /** Asked before each piece of the body is kept. */
  readonly reserve: (bytes: number) => boolean
  /** The shadow's response, or its failure as a failed side. */
  shadowIn(exchange: CapturedExchange): void
  /** Shutting down, or out of budget: not a shadow failure, the comparison is abandoned. */
  shadowAbandoned(reason: unknown): void
}

/** Sends the shadow's request; `watcher` is told how it ended. */
export function forwardShadow(context: PipelineContext, watcher: ShadowSideWatcher): void {
  if (!context.shadowRefusals.mayAttempt()) {
    watcher.shadowIn(failedExchange(context.notAttemptedText, 0, new Date()))
    return
  }
  const { method, target, headers, body } = watcher.request
  const signal = watcher.exchange
  context.shadow.exchange(
    { method, pathAndQuery: target, headers, body, signal },
    context.shadowMaxBytes,
    watcher.reserve,
    new ShadowExchange(context, watcher, signal),
  )
}

/** One shadow exchange's end, made into the comparison's side. */
class ShadowExchange implements ExchangeOutcome {
  private readonly started = performance.now()

  constructor(
    private readonly context: PipelineContext,
    private readonly watcher: ShadowSideWatcher,
    private readonly signal: AbortLike,
  ) {}

  completed(response: WholeResponse): void {
    const { context } = this
    let side: CapturedExchange
    try {
      context.shadowRefusals.recordNotRefused()
      if (response.kind === 'over-budget') {
        this.watcher.shadowAbandoned(new MemoryBudgetReason(context.budget.limit))
        return
      }
      side = {
        status: response.status,
        headers: response.headers,
        body: response.body,
        latencyMs: Math.round(performance.now() - this.started),
        createdAt: new Date(),
      }
    } catch (error) {
      // A bug, in the shadow socket's callback: the comparison is abandoned now (its log says why), not left to its timeout.
      this.watcher.shadowAbandoned(error)
      return
    }
    this.watcher.shadowIn(side)
  }

  failed(error: UpstreamError): void {
    const { signal } = this
    // Shutting down, or out of budget: not a shadow failure, the comparison is abandoned.
    if (signal.reason instanceof DrainAbortReason || signal.reason instanceof MemoryBudgetReason) {
      this.watcher.shadowAbandoned(error)
      return
    }
    let side: CapturedExchange
    try {
      const failure = toUpstreamError(error, 'shadow', signal)
      if (failure.kind === 'refused') this.context.shadowRefusals.recordRefusal()
      else this.context.shadowRefusals.recordNotRefused()
      side = failedExchange(failure.message, Math.round(performance.now() - this.started), new Date())
    } catch (unexpected) {
      this.watcher.shadowAbandoned(unexpected)
      return
    }
    this.watcher.shadowIn(side)
  }
}
