/**
 * The comparison of one shadowed request, from its admission to its end:
 * what was read of the request, the bytes it holds in the budget, the
 * hand-over between live's stream (which the client reads, at its own
 * pace) and the background half (the shadow's exchange, then the sink),
 * and the one outcome it ends with. This object is the only thing the two
 * halves share, and it drives the background half itself: each side
 * reports to it when it is in (`liveBodyEnded` or `liveFailed`, the shadow's
 * exchange), and the capture goes to the sink when both are. No promise,
 * `Promise.all` or closure hands live's side over: each is an allocation,
 * and the proxy makes these at every request (docs/proxy.md "CPU per
 * request").
 *
 * Every way a comparison can end early goes through `abandon` (first
 * reason wins): the shadow timeout (`TimeoutReason`), the drain at
 * shutdown (`DrainAbortReason`), or bytes the budget cannot hold
 * (`MemoryBudgetReason`). It aborts the shadow exchange, gives up the copy
 * of live's body (live streams on to the client untouched) and, unless
 * live's side is in already, ends the wait for it. The shadow's side
 * still comes in (a timed-out shadow is a failed side): with live's, it is
 * captured; without, the comparison is skipped.
 *
 * Exactly once per comparison, whatever the order of events: one outcome
 * (compared, reported, or skipped with a reason), and the callbacks slot,
 * the reservation and the in-flight count given back.
 */
import type { RequestFields } from '../../net/field-list.ts'
import { AbortFlag, type AbortLike } from '../../async/abort-flag.ts'
import { splitTarget } from '../../net/request-target.ts'
import type { HeaderMap } from '../../diff/index.ts'
import { MemoryBudgetReason, type Reservation } from '../policy/byte-budget.ts'
import { failedExchange, REPORT_FAILED, type Capture, type CapturedExchange, type SinkOutcome } from '../sinks/capture-sink.ts'
import type { CopyControl, StreamEnd } from '../upstream/bounded-body.ts'
import type { UpstreamError } from '../upstream/upstream-error.ts'
import { DrainAbortReason, type BackgroundTasks, type TrackedTask } from './background-tasks.ts'
import { captureOf } from './collect.ts'
import { compareOrReport, OVER_BUDGET } from './compare-or-report.ts'
import type { Deadline } from '../../async/deadline-queue.ts'
import { forwardShadow, type ShadowSideWatcher } from './forward-shadow.ts'
import { toLiveExchange, type LiveOutcome } from './live-outcome.ts'
import { skip, type PipelineContext } from './pipeline-context.ts'
import { startLiveRepeat, type LiveRepeat } from './repeat-live.ts'

/** A request admitted for shadowing, as live and the shadow are sent it. */
export interface AdmittedRequest {
  /** The capture's id, the proxy's own (docs/proxy.md "API mode"). */
  readonly id: string
  /** The client's X-Request-ID as sent, for the log. */
  readonly clientRequestId: string | undefined
  readonly method: string
  /** Path and query. */
  readonly target: string
  /** As sent upstream (the forwarding rules applied). */
  readonly headers: RequestFields
  /** The request body as read, or null when the request had none (GET, HEAD). */
  readonly body: Uint8Array | null
}

/** What `live-forwarder.ts` tells the comparison of live's body as it passes to the client. */
export interface LiveBodyWatcher {
  /** The copy the pass-through keeps, made on first use (a small body is copied whole instead). */
  readonly liveCopy: CopyControl
  /** Live's body is through, cut, too large or left by the client; called once, after live's headers were taken. */
  liveBodyEnded(end: StreamEnd): void
}

export class PendingComparison implements TrackedTask, LiveBodyWatcher, ShadowSideWatcher {
  readonly createdAt = new Date()
  /** Set by `start` (`BackgroundTasks.track`): aborted by the drain. */
  drainSignal!: AbortSignal
  trackedIndex = -1
  /** Aborted by `abandon`: what the shadow's exchange listens to (no AbortController: `src/async/abort-flag.ts`). */
  private readonly exchangeAbort = new AbortFlag()
  private tasks!: BackgroundTasks
  private deadline: Deadline | undefined
  private repeat: LiveRepeat | undefined
  /** How live's response ended, as the comparison sees it; the first settlement wins. */
  private liveSide: LiveOutcome | undefined
  /** Waiters for live's side (the noise check's repeat); made only when one asks. */
  private liveWaiters: ((outcome: LiveOutcome) => void)[] | undefined
  private shadowSide: CapturedExchange | undefined
  /** The shadow's side was told (`shadowIn` or `shadowAbandoned`): once. */
  private shadowTold = false
  /** The shadow's exchange gave no side: the comparison was abandoned (drain, budget), for `shadowRejection`. */
  private shadowRejected = false
  private shadowRejection: unknown
  /** Sides not in yet: live's and the shadow's. */
  private sidesPending = 2
  private _liveCopy: CopyControl | undefined
  /** Bytes of live's copy reserved so far, chunk by chunk. */
  private liveReserved = 0
  /** Live's status and headers, taken when its headers arrived, and when it was sent. */
  private liveStatus = 0
  private liveHeaders: HeaderMap | undefined
  private liveStarted = 0

  /**
   * @param request what live and the shadow are sent
   * @param reservation the comparison's bytes in the budget, the request body's already in
   */
  constructor(
    private readonly context: PipelineContext,
    readonly request: AdmittedRequest,
    readonly reservation: Reservation,
  ) {}

  /**
   * The background half, started before live's request is sent so that the
   * shadow's leaves in the same tick: the shadow's exchange, its timeout,
   * and the noise check's repeat (`repeat-live.ts`).
   */
  start(tasks: BackgroundTasks): void {
    const { context } = this
    this.tasks = tasks
    tasks.track(this)
    context.inFlight.inc()
    this.deadline = context.shadowDeadlines.add(this)
    // Started with the comparison: the repeat waits for live's first answer, not for the shadow's.
    if (context.noise !== undefined) {
      try {
        this.repeat = startLiveRepeat(context.noise, this, this.drainSignal)
      } catch (error) {
        // A bug: the comparison goes on without its repeat.
        context.logger.error('background comparison failed unexpectedly', { error })
      }
    }
    try {
      forwardShadow(context, this)
    } catch (error) {
      // A bug, not a shadow failure: the comparison still ends, once.
      this.shadowAbandoned(error)
    }
  }

  /** Aborted by `abandon`: the shadow exchange listens to it. */
  get exchange(): AbortLike {
    return this.exchangeAbort
  }

  /** How live's response ended, for a waiter that cannot be told (the noise check). Never rejects. */
  get liveOutcome(): Promise<LiveOutcome> {
    if (this.liveSide !== undefined) return Promise.resolve(this.liveSide)
    return new Promise((resolve) => (this.liveWaiters ??= []).push(resolve))
  }

  /**
   * The copy of live's body that the pass-through keeps for the
   * comparison: each chunk reserved in the budget, dropped by `abandon`.
   */
  get liveCopy(): CopyControl {
    return (this._liveCopy ??= {
      dropped: this.liveSide !== undefined,
      reserve: (bytes) => {
        this.liveReserved += bytes
        return this.reserve(bytes)
      },
    })
  }

  /**
   * Ends the comparison early (see above). A client that reads live's
   * body slowly, or never, then holds neither the callbacks slot past the
   * bound nor the copy of a body nobody will compare.
   */
  abandon(reason: unknown): void {
    this.exchangeAbort.abort(reason)
    const copy = this._liveCopy
    if (copy !== undefined) {
      copy.dropped = true
      copy.drop?.()
    }
    this.settleLive({ kind: 'abandoned', reason })
  }

  /** The drain at shutdown aborts the comparison (`BackgroundTasks.drain`). */
  onDrainAbort(reason: unknown): void {
    this.abandon(reason)
  }

  /** Reserves bytes as they arrive; bytes the budget cannot hold abandon the comparison (`memory_budget`). */
  readonly reserve = (bytes: number): boolean => {
    if (this.reservation.add(bytes)) return true
    this.abandon(new MemoryBudgetReason(this.reservation.limit))
    return false
  }

  /** Live gave no response (502/504 to the client): a failed side, compared. */
  liveFailed(error: UpstreamError, latencyMs: number): void {
    this.settleLive({ kind: 'no-response', exchange: failedExchange(error.message, latencyMs, this.createdAt) })
  }

  /**
   * Live's headers are in, before the client's response goes out.
   * @param headers taken now: Bun drops Content-Length from live's once the client's response is sent
   * @param started when live's request was sent (performance.now())
   */
  liveAnswered(status: number, headers: HeaderMap, started: number): void {
    this.liveStatus = status
    this.liveHeaders = headers
    this.liveStarted = started
  }

  /** Live's body is through, cut, too large or left by the client (after `liveAnswered`). */
  liveBodyEnded(end: StreamEnd): void {
    if (this.liveSide !== undefined) return
    // A small body is copied whole by clone(), not chunk by chunk: reserved once it is in.
    if (end.kind === 'complete' && end.bytes.byteLength > this.liveReserved && !this.reserve(end.bytes.byteLength - this.liveReserved)) return
    const latencyMs = performance.now() - this.liveStarted
    this.settleLive({ kind: 'response', status: this.liveStatus, headers: this.liveHeaders!, end, latencyMs })
  }

  private settleLive(outcome: LiveOutcome): void {
    if (this.liveSide !== undefined) return
    this.liveSide = outcome
    const waiters = this.liveWaiters
    if (waiters !== undefined) {
      this.liveWaiters = undefined
      for (const wake of waiters) wake(outcome)
    }
    this.sideIn()
  }

  shadowIn(exchange: CapturedExchange): void {
    if (this.shadowTold) return
    this.shadowTold = true
    this.shadowSide = exchange
    this.sideIn()
  }

  shadowAbandoned(reason: unknown): void {
    if (this.shadowTold) return
    this.shadowTold = true
    this.shadowRejected = true
    this.shadowRejection = reason
    this.abandon(reason)
    this.sideIn()
  }

  private sideIn(): void {
    if (--this.sidesPending > 0) return
    this.deadline?.cancel()
    let outcome: SinkOutcome | Promise<SinkOutcome>
    try {
      outcome = this.compareOrSkip()
    } catch (error) {
      outcome = this.abandoned(error)
    }
    // A sink that compares answers at once: no promise, no turn of the event loop.
    if (outcome instanceof Promise || this.repeat !== undefined) void this.endLater(outcome)
    else this.end(outcome)
  }

  /** Both sides are in: the capture to the sink, or why there is none. Throws the reason the comparison was abandoned. */
  private compareOrSkip(): SinkOutcome | Promise<SinkOutcome> {
    const liveSide = this.liveSide!
    if (this.shadowRejected) throw this.shadowRejection
    if (liveSide.kind === 'abandoned') throw liveSide.reason
    const live = toLiveExchange(liveSide, this.createdAt)
    if (live === 'too-large') return BODY_TOO_LARGE
    if (live === 'incomplete') return REPORT_FAILED
    const capture = captureOf(this, live, this.shadowSide!)
    if (this.repeat !== undefined) return this.withRepeat(capture)
    return compareOrReport(this.context, this, capture, this.drainSignal)
  }

  private async withRepeat(capture: Capture): Promise<SinkOutcome> {
    const liveRepeat = await this.repeat!.result
    if (liveRepeat !== undefined) capture.liveRepeat = liveRepeat
    return compareOrReport(this.context, this, capture, this.drainSignal)
  }

  /** The outcome of a comparison abandoned (or whose sink threw), said in the log unless it is the budget's or the drain's doing. Never throws (a logger does not). */
  private abandoned(error: unknown): SinkOutcome {
    const overBudget = error instanceof MemoryBudgetReason || this.exchange.reason instanceof MemoryBudgetReason
    if (!overBudget && !(this.drainSignal.reason instanceof DrainAbortReason)) {
      this.context.warnings.warn('comparison abandoned', { 'request.path': splitTarget(this.request.target).path, error })
    }
    return overBudget ? OVER_BUDGET : REPORT_FAILED
  }

  /** The sink's answer, then the repeat closed, then `end`. Never rejects. */
  private async endLater(pending: SinkOutcome | Promise<SinkOutcome>): Promise<void> {
    let outcome: SinkOutcome = REPORT_FAILED
    try {
      try {
        outcome = await pending
      } catch (error) {
        outcome = this.abandoned(error)
      }
      if (this.repeat !== undefined) await this.repeat.close()
    } catch (error) {
      // A bug, not an upstream failure (those are outcomes above).
      this.context.logger.error('background comparison failed unexpectedly', { error })
    } finally {
      this.end(outcome)
    }
  }

  /**
   * Gives everything back and counts the outcome: once per comparison.
   * Never throws: it runs inside whatever brought the last side in (live's
   * stream, the shadow's exchange, the deadline's timer), and the task is
   * finished whatever happens, or the drain at shutdown would wait for it.
   */
  private end(outcome: SinkOutcome): void {
    const { context } = this
    try {
      this.reservation.release()
      context.callbacks.release()
      context.inFlight.dec()
      if (outcome.kind === 'skipped') skip(context, outcome.reason, this.request.method, this.request.target)
    } catch (error) {
      context.logger.error('background comparison failed unexpectedly', { error })
    } finally {
      this.tasks.finished(this)
    }
  }
}

const BODY_TOO_LARGE: SinkOutcome = { kind: 'skipped', reason: 'body_too_large' }
