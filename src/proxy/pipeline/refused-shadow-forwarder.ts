/**
 * A request that arrives while the shadow is known to be down: it refused
 * a connection and has not answered since (`refusal-window.ts`), so no
 * shadow request is attempted and the comparison is an `error` with shadow
 * status 0 whatever live answers (docs/proxy.md "Forwarding"). When the
 * sink can take such an error from the statuses and the cause alone
 * (`CaptureSink.shadowNotAttempted`: the diff-log sink of standalone mode
 * and the module), nothing about live's response is worth keeping but its
 * status. So live is forwarded exactly as an unshadowed request is (no copy
 * of its body or headers, no background task, no capture) and the sink is
 * told as soon as live's headers are in. A shadow that is down should leave
 * the client's p50 and p99 within 10 % of no shadowing; every microsecond
 * spent here counts against that (docs/proxy.md "Benchmark").
 *
 * What stays as on the full path: the request is compared exactly once
 * (`svc_responses_compared_total{result="error"}`), with the same cause
 * (`failureCause`); a live failure (502/504) is compared with both sides
 * failed; the callbacks slot the caller holds is freed once the sink has
 * answered. What this path cannot see, since it does not wait for live's
 * body: a body over SVC_APP_MAX_BODY_SIZE, one cut mid-way, or a client
 * that leaves early. On the full path those end as `body_too_large`, an
 * error, or `report_failed`; here they are the `error` the shadow already
 * made of the comparison.
 */
import { headersOf } from '../../net/field-list.ts'
import { failureCause } from '../../diff/index.ts'
import { splitTarget } from '../../net/request-target.ts'
import { REPORT_FAILED, type ShadowNotAttempted, type SinkOutcome } from '../sinks/capture-sink.ts'
import type { LiveForwarder } from './live-forwarder.ts'
import type { AdmittedRequest } from './pending-comparison.ts'
import type { UpstreamError } from '../upstream/upstream-error.ts'

export interface NotAttemptedReportOptions {
  /** The sink's `shadowNotAttempted`. */
  readonly report: (request: ShadowNotAttempted) => SinkOutcome
  /** The shadow side's error text: no connection was attempted. */
  readonly notAttemptedText: string
  /** Called once with what became of the comparison: frees the callbacks slot, counts a skip. */
  readonly settle: (outcome: SinkOutcome) => void
  /** A sink that throws (a bug): the comparison then counts as `report_failed`. */
  readonly onUnexpected: (error: unknown) => void
}

export interface RefusedShadowForwarderOptions extends NotAttemptedReportOptions {
  readonly live: LiveForwarder
}

/** What the report reads of a request whose shadow was not attempted: no capture id, which it makes only when asked. */
export type NotAttemptedRequest = Pick<AdmittedRequest, 'clientRequestId' | 'method' | 'target'>

/**
 * Tells the sink of a request whose shadow was not attempted, once live's
 * status is known (0 with `liveError` when live gave no response), and
 * settles it. Shared by both servers: the raw server relays live itself
 * (`relay-live.ts`) and reports through this.
 */
export type NotAttemptedReport = (request: NotAttemptedRequest, liveStatus: number, liveError: UpstreamError | undefined) => void

export function createNotAttemptedReport(options: NotAttemptedReportOptions): NotAttemptedReport {
  const { report, notAttemptedText, settle, onUnexpected } = options
  // The cause whenever live answers: the same for every request.
  const shadowOnlyCause = failureCause(undefined, notAttemptedText)
  return ({ clientRequestId, method, target }, liveStatus, liveError) => {
    let outcome: SinkOutcome
    try {
      const cause = liveError === undefined ? shadowOnlyCause : failureCause(liveError.message, notAttemptedText)
      outcome = report(new NotAttemptedCapture(clientRequestId, method, splitTarget(target).path, liveStatus, liveError?.message, notAttemptedText, cause))
    } catch (error) {
      onUnexpected(error)
      outcome = REPORT_FAILED
    }
    settle(outcome)
  }
}

/**
 * Its capture id is made when it is first read: the sink reads it only for
 * a log line it writes, and a shadow that is down makes one line per
 * interval and kind of failure, not one per request.
 */
class NotAttemptedCapture implements ShadowNotAttempted {
  #madeId: string | undefined

  constructor(
    readonly clientRequestId: string | undefined,
    readonly method: string,
    readonly path: string,
    readonly liveStatus: number,
    readonly liveError: string | undefined,
    readonly shadowError: string,
    readonly cause: string,
  ) {}

  get id(): string {
    return (this.#madeId ??= crypto.randomUUID())
  }
}

export type RefusedShadowForwarder = (request: NotAttemptedRequest & Pick<AdmittedRequest, 'headers' | 'body'>) => Promise<Response>

export function createRefusedShadowForwarder(options: RefusedShadowForwarderOptions): RefusedShadowForwarder {
  const { live } = options
  const reportNotAttempted = createNotAttemptedReport(options)
  return async (request) => {
    const { method, target, headers, body } = request
    const result = await live.send(method, target, headersOf(headers), body)
    if (result.ok) reportNotAttempted(request, result.exchange.response.status, undefined)
    else reportNotAttempted(request, 0, result.error)
    return live.respond(result)
  }
}
