/**
 * What the stages of one shadow handler share: made once by
 * `createShadowHandler` from its settings, read by every request. Per
 * request, a stage gets this and the request's own `PendingComparison`.
 */
import type { Logger, RateLimitedLogger } from '../../log/index.ts'
import type { Gauge, GateSkips, SkipReason } from '../../metrics/index.ts'
import type { AdmissionPolicy } from '../policy/admission-policy.ts'
import type { ByteBudget } from '../policy/byte-budget.ts'
import type { RefusalWindow } from '../policy/refusal-window.ts'
import type { Semaphore } from '../policy/semaphore.ts'
import type { ShadowSettings } from '../policy/shadow-settings.ts'
import type { CaptureSink } from '../sinks/capture-sink.ts'
import type { ShadowClient } from '../upstream/upstream-client.ts'
import type { DeadlineQueue } from '../../async/deadline-queue.ts'
import type { LiveForwarder } from './live-forwarder.ts'
import type { PendingComparison } from './pending-comparison.ts'
import type { NoiseCheckContext } from './repeat-live.ts'
import type { SkipWarnings } from './skip-warnings.ts'

export interface PipelineContext {
  readonly settings: ShadowSettings
  readonly logger: Logger
  /** Rate-limited: skips and abandoned comparisons come in floods. */
  readonly warnings: RateLimitedLogger
  /** The skips' warnings, made through `warnings`. */
  readonly skipWarnings: SkipWarnings
  readonly admission: AdmissionPolicy
  /** The background comparisons' slots (SVC_APP_MAX_CONCURRENT_CALLBACKS), taken at admission. */
  readonly callbacks: Semaphore
  /** The bytes the background comparisons hold together (docs/proxy.md "Memory"). */
  readonly budget: ByteBudget
  readonly live: LiveForwarder
  readonly shadow: ShadowClient
  /** The shadow's body bound: the body bound, else the budget (docs/proxy.md "Memory"). */
  readonly shadowMaxBytes: number
  /** After the shadow refuses a connection, it is not tried again for a while (`refusal-window.ts`). */
  readonly shadowRefusals: RefusalWindow
  /** The shadow side's error text while it is not tried. */
  readonly notAttemptedText: string
  readonly sink: CaptureSink
  /** The shadow timeout of each comparison, set when it starts (`collect.ts` `shadowDeadlines`). */
  readonly shadowDeadlines: DeadlineQueue<PendingComparison>
  /** `svc_background_comparisons`. */
  readonly inFlight: Gauge
  /** `svc_comparisons_skipped_total` of this handler's gate. */
  readonly skips: GateSkips
  /** The noise check (`repeat-live.ts`); undefined when SVC_APP_NOISE_SAMPLE_RATE is 0. */
  readonly noise?: NoiseCheckContext
}

/** Counts a request that is not compared; the two kinds a flood makes are also said, rate-limited. */
export function skip(context: PipelineContext, reason: SkipReason, method: string, target: string): void {
  context.skips.inc(reason)
  if (reason === 'callbacks_full') context.skipWarnings.callbacksFull(method, target)
  else if (reason === 'memory_budget') context.skipWarnings.budgetFull(method, target)
}
