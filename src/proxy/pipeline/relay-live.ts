/**
 * Stage 2 on the raw server (docs/proxy.md "The raw server"): live's
 * response relayed to the client as our HTTP/1.1 client reads it, with no
 * Response or stream object in between. The head goes out when it is in;
 * each piece of the body follows as it comes, the client's backpressure
 * pausing live's connection; for a shadowed request a copy of the body
 * within the bound is kept for the comparison, as `live-forwarder.ts`
 * keeps one on the Bun.serve path. A live that gives no response is a
 * 502 or 504 Problem, as there.
 */
import type { RequestFields } from '../../net/field-list.ts'
import type { Problem } from '../../errors/problem.ts'
import type { HeaderMap } from '../../diff/index.ts'
import { AbortFlag } from '../../async/abort-flag.ts'
import { exceeds } from '../policy/body-bound.ts'
import { concatChunks, type StreamEnd } from '../upstream/bounded-body.ts'
import { headerMapOfFields } from '../upstream/header-map.ts'
import type { ExchangeOutcome, Http1Client } from '../upstream/upstream-client.ts'
import type { ReadControl, ResponseRelay, SentHead } from '../upstream/http1-response.ts'
import type { Framing, ResponseHead } from '../upstream/response-head.ts'
import { toUpstreamError, type UpstreamError } from '../upstream/upstream-error.ts'
import { liveFailureProblem } from './problem-response.ts'
import type { LiveBodyWatcher } from './pending-comparison.ts'

/**
 * The client's side of one response on the raw server
 * (`server/raw-connection.ts`): it writes HTTP/1.1 to the client's socket.
 */
export interface ClientSide {
  /** Live's head as the client's response head: the server drops the hop-by-hop fields and frames the body (`sent`: the head as live sent it, valid during the call only). */
  head(head: ResponseHead, statusLine: string, framing: Framing, sent: SentHead): void
  /**
   * A piece of live's body, `data[from, to)` (valid during the call only).
   * `false`: the client's buffer is full; the watcher's `clientDrained` is
   * called once it has taken what was held.
   */
  body(data: Buffer, from: number, to: number): boolean
  /** Live's response is through. */
  end(): void
  /** A Problem in place of live's response: no head went out. */
  problem(problem: Problem): void
  /** Live broke off after its head went out: the client's response is cut and its connection closed. */
  broken(): void
  /** Set by the relay for the response: told of the client's buffer and of the client leaving. */
  watcher: ClientWatcher | undefined
  /** The request is over (answered and counted): the connection may read its next one. */
  finished(): void
}

/** What a relay is told of the client (an object, not two closures made per request). */
export interface ClientWatcher {
  /** The client's buffer has room again. */
  clientDrained(): void
  /** The client went away before the response was through. */
  clientGone(reason: unknown): void
}

/** What the comparison is told of live's response (`PendingComparison`). */
export interface LiveWatcher extends LiveBodyWatcher {
  liveAnswered(status: number, headers: HeaderMap, started: number): void
  liveFailed(error: UpstreamError, latencyMs: number): void
}

export interface LiveRequest {
  readonly method: string
  readonly pathAndQuery: string
  readonly headers: RequestFields
  readonly body: Uint8Array | null
}

const EMPTY = new Uint8Array(0)

/** How a relayed exchange ended for the client. */
export interface RelayOutcome {
  /** The status the client got: live's, or the Problem's when live gave no head; 499 when the client left before either. */
  readonly status: number
  /**
   * When the client's response began (performance.now()): what the
   * server's duration histogram measures, the body's transfer left out, as
   * on the Bun.serve path.
   */
  readonly respondedAt: number
  /** Why live gave no head (the client got a 502 or 504); undefined once live's head went out. */
  readonly noResponse: UpstreamError | undefined
  /** The client left before live's head: nobody was answered. */
  readonly clientLeft: boolean
}

/** Told once how a relayed request ended (`relayLive`). */
export interface RelayDone {
  relayed(outcome: RelayOutcome): void
  /** A bug on the way, not live's failure (those are outcomes): the client is answered by the caller. */
  failedUnexpectedly(error: unknown): void
}

/**
 * Relays live's response to `side`; `done` is told how it ended, from the
 * socket's callback that read live's last bytes (no promise in between).
 * @param maxBodyBytes the bound of the copy kept for `watcher` (0: all)
 */
export function relayLive(
  client: Http1Client,
  request: LiveRequest,
  side: ClientSide,
  maxBodyBytes: number,
  watcher: LiveWatcher | undefined,
  done: RelayDone,
): void {
  const relay = new LiveRelay(side, maxBodyBytes, watcher, done)
  try {
    client.relay(
      { method: request.method, pathAndQuery: request.pathAndQuery, headers: request.headers, body: request.body, signal: relay.abort },
      relay,
      relay,
    )
  } catch (error) {
    relay.failed(toUpstreamError(error, 'live', relay.abort))
  }
}

/** One relayed response: what went out, the copy kept, the client's backpressure. */
class LiveRelay implements ResponseRelay, ExchangeOutcome, ClientWatcher {
  reading: ReadControl | undefined
  /** Ended by the client going away: the exchange stops and live's connection is not reused. */
  readonly abort = new AbortFlag()
  status = 0
  /** When the client's response began: live's head in, or the Problem sent (performance.now()). */
  respondedAt = 0
  private readonly started = performance.now()
  private headSent = false
  private copy: Uint8Array[] | undefined
  private copied = 0
  private paused = false
  /** `done` was told: a throw further down the same call (the next request read, say) does not end this one twice. */
  private told = false

  constructor(
    private readonly side: ClientSide,
    private readonly maxBodyBytes: number,
    private readonly watcher: LiveWatcher | undefined,
    private readonly done: RelayDone,
  ) {
    side.watcher = this
  }

  clientGone(reason: unknown): void {
    this.abort.abort(reason)
  }

  clientDrained(): void {
    if (!this.paused) return
    this.paused = false
    this.reading?.resume()
  }

  head(head: ResponseHead, statusLine: string, framing: Framing, sent: SentHead): void {
    this.status = head.status
    const { watcher } = this
    if (watcher !== undefined) {
      watcher.liveAnswered(head.status, headerMapOfFields(head.fields, head.setCookies), this.started)
      const control = watcher.liveCopy
      if (!control.dropped) {
        this.copy = []
        // The comparison was abandoned (its timeout, the drain): nothing more is kept.
        control.drop = () => (this.copy = undefined)
      }
    }
    this.headSent = true
    this.respondedAt = performance.now()
    this.side.head(head, statusLine, framing, sent)
  }

  body(data: Buffer, from: number, to: number): void {
    const copy = this.copy
    if (copy !== undefined) {
      const length = to - from
      this.copied += length
      // Past the bound, or refused by the budget (the comparison is then abandoned): live goes on.
      if (exceeds(this.copied, this.maxBodyBytes) || this.watcher!.liveCopy.reserve?.(length) === false) this.copy = undefined
      else {
        const piece = new Uint8Array(length)
        data.copy(piece, 0, from, to)
        copy.push(piece)
      }
    }
    if (!this.side.body(data, from, to) && !this.paused && this.reading !== undefined) {
      this.paused = true
      this.reading.pause()
    }
  }

  /** Live's response is through: the client's response ends, then the comparison is told. */
  completed(): void {
    if (this.told) return
    this.told = true
    try {
      this.complete()
    } catch (error) {
      this.done.failedUnexpectedly(error)
      return
    }
    this.done.relayed({ status: this.status, respondedAt: this.respondedAt, noResponse: undefined, clientLeft: false })
  }

  /** Live gave no response, or broke off. */
  failed(error: UpstreamError): void {
    if (this.told) return
    this.told = true
    let outcome: RelayOutcome
    try {
      outcome = this.fail(error)
    } catch (unexpected) {
      this.done.failedUnexpectedly(unexpected)
      return
    }
    this.done.relayed(outcome)
  }

  private complete(): void {
    // Paused on its last piece: read again, so that the idle connection notices a close.
    this.clientDrained()
    this.side.end()
    const { watcher } = this
    if (watcher === undefined) return
    const copy = this.copy
    const end: StreamEnd =
      copy === undefined ? { kind: 'too-large' } : { kind: 'complete', bytes: copy.length === 0 ? EMPTY : concatChunks(copy, this.copied) }
    this.copy = undefined
    watcher.liveBodyEnded(end)
  }

  /** What the client got when live gave no response or broke off. */
  private fail(error: UpstreamError): RelayOutcome {
    const { watcher } = this
    if (this.abort.aborted) {
      // The client went away: nobody to answer. Counted as nginx counts it, 499 before live's head.
      watcher?.liveBodyEnded({ kind: 'cancelled' })
      if (this.headSent) return { status: this.status, respondedAt: this.respondedAt, noResponse: undefined, clientLeft: false }
      return { status: CLIENT_CLOSED_REQUEST, respondedAt: performance.now(), noResponse: undefined, clientLeft: true }
    }
    if (this.headSent) {
      this.side.broken()
      watcher?.liveBodyEnded({ kind: 'failed', error })
      return { status: this.status, respondedAt: this.respondedAt, noResponse: undefined, clientLeft: false }
    }
    const problem = liveFailureProblem(error)
    this.side.problem(problem)
    watcher?.liveFailed(error, Math.round(performance.now() - this.started))
    return { status: problem.status, respondedAt: performance.now(), noResponse: error, clientLeft: false }
  }
}

const CLIENT_CLOSED_REQUEST = 499
