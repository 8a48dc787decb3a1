/**
 * The noise check's repeat (docs/proxy.md "Noise check"): for a sampled
 * GET, HEAD or OPTIONS without a body, live is asked the same thing again,
 * with `X-Svc-Mode: repeat`, once its first answer has passed through to
 * the client whole: the client never waits for it. Its response, read
 * whole, becomes the capture's `liveRepeat`, which the sink compares with
 * live's first answer (standalone, the module) or reports (API mode).
 *
 * The repeat is bounded by the live timeout (its whole exchange, body
 * included) and by the body bound, and its bytes count in the
 * bytes-in-flight budget through a reservation of its own: a repeat that
 * does not fit is skipped (`memory_budget`) without harming the
 * comparison it belongs to.
 */
import { headersCopyOf, type RequestFields } from '../../net/field-list.ts'
import type { GateNoiseSkips } from '../../metrics/index.ts'
import type { ByteBudget, Reservation } from '../policy/byte-budget.ts'
import { REPEAT_MODE_VALUE, SHADOW_MODE_HEADER } from '../policy/forward-headers.ts'
import { DEFAULT_NOISE_MAX_PER_SECOND, DEFAULT_NOISE_SAMPLE_RATE, NoiseSampler } from '../policy/noise-sampler.ts'
import type { RandomSource } from '../policy/sampler.ts'
import type { ShadowSettings } from '../policy/shadow-settings.ts'
import { failedExchange, type CapturedExchange } from '../sinks/capture-sink.ts'
import { contentLength, readResponseBody } from '../upstream/bounded-body.ts'
import { headerMapOf } from '../upstream/header-map.ts'
import type { UpstreamClient } from '../upstream/upstream-client.ts'
import { liveStatusProblem } from '../upstream/response-head.ts'
import { badResponse, responseTooLarge, TimeoutReason, toUpstreamError } from '../upstream/upstream-error.ts'
import type { PendingComparison } from './pending-comparison.ts'

/** What the noise check needs of the handler, made once. */
export interface NoiseCheckContext {
  readonly sampler: NoiseSampler
  /** Live's client: the repeat shares live's connections and slots. */
  readonly live: UpstreamClient
  /** SVC_APP_LIVE_TIMEOUT, here for the whole exchange. */
  readonly timeoutMs: number
  /** The repeat's body bound: the body bound, else the budget, as the shadow's. */
  readonly maxBytes: number
  readonly budget: ByteBudget
  /** `svc_noise_checks_skipped_total` of the handler's gate. */
  readonly skips: GateNoiseSkips
}

/**
 * The handler's noise check, from its settings; undefined when the sample
 * rate is 0 (off), and then nothing of it costs a request anything.
 */
export function createNoiseCheck(
  settings: Pick<ShadowSettings, 'noiseSampleRate' | 'noiseMaxPerSecond' | 'liveTimeoutMs' | 'maxBodyBytes'>,
  deps: Pick<NoiseCheckContext, 'live' | 'budget' | 'skips'> & { readonly random?: RandomSource },
): NoiseCheckContext | undefined {
  const sampleRate = settings.noiseSampleRate ?? DEFAULT_NOISE_SAMPLE_RATE
  if (sampleRate === 0) return undefined
  return {
    sampler: new NoiseSampler({
      sampleRate,
      maxPerSecond: settings.noiseMaxPerSecond ?? DEFAULT_NOISE_MAX_PER_SECOND,
      random: deps.random,
    }),
    live: deps.live,
    timeoutMs: settings.liveTimeoutMs,
    maxBytes: settings.maxBodyBytes === 0 ? deps.budget.limit : settings.maxBodyBytes,
    budget: deps.budget,
    skips: deps.skips,
  }
}

/** A repeat under way for one comparison. */
export interface LiveRepeat {
  /** Live's second answer (status 0 when it failed), or undefined when none was made. Never rejects. */
  readonly result: Promise<CapturedExchange | undefined>
  /** Aborts a repeat still running, waits for it to settle, gives its bytes back. Idempotent. */
  close(): Promise<void>
}

/** The reason a repeat that nobody will read any more is aborted with. */
class RepeatClosed extends Error {
  readonly code = 'repeat-closed'
}

/**
 * Starts the noise check of a shadowed request, or counts why it gets
 * none; undefined when there is nothing to wait for.
 * @param signal the background task's: the drain aborts the repeat
 */
export function startLiveRepeat(noise: NoiseCheckContext, comparison: PendingComparison, signal: AbortSignal): LiveRepeat | undefined {
  const { method, headers, body } = comparison.request
  const choice = noise.sampler.choose(method, hadBody(body, headers))
  if (choice === 'unsampled') return undefined
  if (choice !== 'sampled') {
    noise.skips.inc(choice)
    return undefined
  }
  const controller = new AbortController()
  const reservation = noise.budget.open()
  const result = repeatOnceLiveEnded(noise, comparison, reservation, AbortSignal.any([controller.signal, signal]))
  let closing: Promise<void> | undefined
  return {
    result,
    close: () =>
      (closing ??= (async () => {
        controller.abort(new RepeatClosed('the comparison ended'))
        await result
        reservation.release()
      })()),
  }
}

async function repeatOnceLiveEnded(
  noise: NoiseCheckContext,
  comparison: PendingComparison,
  reservation: Reservation,
  signal: AbortSignal,
): Promise<CapturedExchange | undefined> {
  const outcome = await comparison.liveOutcome
  if (signal.aborted) return undefined
  if (outcome.kind !== 'response' || outcome.end.kind !== 'complete') {
    noise.skips.inc('live_incomplete')
    return undefined
  }
  // A small body's copy can be complete before live's own response, which
  // Bun sends, is written: one turn of the event loop lets it go first.
  await new Promise((resolve) => setImmediate(resolve))
  if (signal.aborted) return undefined
  if (!noise.sampler.tryRepeat()) {
    noise.skips.inc('rate_limited')
    return undefined
  }
  const exchange = await sendRepeat(noise, comparison, reservation, signal)
  if (exchange === 'over-budget') {
    noise.skips.inc('memory_budget')
    return undefined
  }
  // Shut down or closed mid-way: not a failure of live's.
  return signal.aborted ? undefined : exchange
}

/** The repeat itself, within the live timeout, its body read whole. */
async function sendRepeat(
  noise: NoiseCheckContext,
  comparison: PendingComparison,
  reservation: Reservation,
  closed: AbortSignal,
): Promise<CapturedExchange | 'over-budget'> {
  const { method, target } = comparison.request
  const timeout = new AbortController()
  const timer = setTimeout(abortOnTimeout, noise.timeoutMs, timeout, noise.timeoutMs)
  const signal = AbortSignal.any([timeout.signal, closed])
  const headers = headersCopyOf(comparison.request.headers)
  headers.set(SHADOW_MODE_HEADER, REPEAT_MODE_VALUE)
  const started = performance.now()
  try {
    const sent = await noise.live.send({ method, pathAndQuery: target, headers, body: null, signal })
    try {
      const { response } = sent
      // As live's first answer (live-forwarder.ts): 000 would be a failed side whose body is stored as its error text.
      const problem = liveStatusProblem(response.status)
      if (problem !== undefined) {
        void response.body?.cancel().catch(() => {})
        throw badResponse('live', problem)
      }
      const responseHeaders = headerMapOf(response.headers)
      const read = await readResponseBody(response, noise.maxBytes, reservation.add)
      if (read.kind === 'over-budget') return read.kind
      // A failed side, as the shadow's would be: live's first body was within the bound.
      if (read.kind === 'too-large') throw responseTooLarge('live', `body over ${noise.maxBytes} bytes`)
      return {
        status: response.status,
        headers: responseHeaders,
        body: read.bytes,
        latencyMs: Math.round(performance.now() - started),
        createdAt: new Date(),
      }
    } finally {
      sent.done()
    }
  } catch (error) {
    return failedExchange(toUpstreamError(error, 'live', signal).message, Math.round(performance.now() - started), new Date())
  } finally {
    clearTimeout(timer)
  }
}

/**
 * "Never when the client's request had a body": the body as read (GET and
 * HEAD bodies are not read, so their Content-Length says).
 */
function hadBody(body: Uint8Array | null, headers: RequestFields): boolean {
  if (body !== null && body.byteLength > 0) return true
  const announced = contentLength(headers)
  return announced !== undefined && announced > 0
}

function abortOnTimeout(controller: AbortController, timeoutMs: number): void {
  controller.abort(new TimeoutReason(timeoutMs))
}
