/**
 * The comparison of one shadowed request, from its admission to its end:
 * what was read of the request, the bytes it holds in the budget, and the hand-over
 * between live's stream (which the client reads, at its own pace) and the
 * background comparison (which waits for live's copy). This object is the
 * only thing the two halves share.
 *
 * Every way a comparison can end early goes through `abandon` (first
 * reason wins): the shadow timeout (`TimeoutReason`), the drain at
 * shutdown (`DrainAbortReason`), or bytes the budget cannot hold
 * (`MemoryBudgetReason`). It aborts the shadow exchange, gives up the copy
 * of live's body (live streams on to the client untouched) and ends the
 * comparison's wait for live.
 */
import type { HeaderMap } from '../../diff/index.ts'
import { MemoryBudgetReason, type Reservation } from '../policy/byte-budget.ts'
import { failedExchange } from '../sinks/capture-sink.ts'
import type { CopyControl, StreamEnd } from '../upstream/bounded-body.ts'
import type { UpstreamError } from '../upstream/upstream-error.ts'
import type { LiveOutcome } from './live-outcome.ts'

/** A request admitted for shadowing, as live and the shadow are sent it. */
export interface AdmittedRequest {
  /** The capture's id, the proxy's own (docs/proxy.md "API mode"). */
  readonly id: string
  /** The client's X-Request-ID as sent, for the log. */
  readonly clientRequestId: string | undefined
  readonly method: string
  /** Path and query. */
  readonly target: string
  readonly headers: Headers
  /** The request body as read, or null when the request had none (GET, HEAD). */
  readonly body: Uint8Array | null
}

export class PendingComparison {
  readonly createdAt = new Date()
  /** How live's response ended, as the comparison sees it; the first settlement wins. */
  readonly liveOutcome: Promise<LiveOutcome>
  /**
   * The copy of live's body that the pass-through keeps for the
   * comparison: each chunk reserved in the budget, dropped by `abandon`.
   */
  readonly liveCopy: CopyControl
  private readonly exchangeController = new AbortController()
  private settleLive!: (outcome: LiveOutcome) => void
  /** Bytes of live's copy reserved so far, chunk by chunk. */
  private liveReserved = 0

  /**
   * @param request what live and the shadow are sent
   * @param reservation the comparison's bytes in the budget, the request body's already in
   */
  constructor(
    readonly request: AdmittedRequest,
    readonly reservation: Reservation,
  ) {
    this.liveOutcome = new Promise<LiveOutcome>((resolve) => {
      this.settleLive = resolve
    })
    this.liveCopy = {
      dropped: false,
      reserve: (bytes) => {
        this.liveReserved += bytes
        return this.reserve(bytes)
      },
    }
  }

  /** Aborted by `abandon`: the shadow exchange listens to it. */
  get exchange(): AbortSignal {
    return this.exchangeController.signal
  }

  /**
   * Ends the comparison early (see above). A client that reads live's
   * body slowly, or never, then holds neither the callbacks slot past the
   * bound nor the copy of a body nobody will compare.
   */
  readonly abandon = (reason: unknown): void => {
    this.exchangeController.abort(reason)
    this.liveCopy.dropped = true
    this.liveCopy.drop?.()
    this.settleLive({ kind: 'abandoned', reason })
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
   * Live's body is through, cut, too large or left by the client.
   * @param headers taken when live's headers arrived, before the client's response went out
   * @param latencyMs from sending to the end of the body
   */
  liveEnded(status: number, headers: HeaderMap, end: StreamEnd, latencyMs: number): void {
    // A small body is copied whole by clone(), not chunk by chunk: reserved once it is in.
    if (end.kind === 'complete' && end.bytes.byteLength > this.liveReserved) this.reserve(end.bytes.byteLength - this.liveReserved)
    this.settleLive({ kind: 'response', status, headers, end, latencyMs })
  }
}
