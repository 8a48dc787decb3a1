import { ApiCallError } from '../cli/api-call-error.ts'
import type { ApiClient } from '../cli/api-client.ts'
import { callCandidate, type CandidateCallOptions } from './candidate-call.ts'
import type { Pacer } from './pacer.ts'
import { planReplay, type ReplayPolicy } from './replay-plan.ts'
import type { ReplayTally } from './replay-tally.ts'
import { isStoredCapture, type StoredCapture } from './stored-capture.ts'

export interface ReplayLoopOptions {
  readonly client: ApiClient
  /** The replay gate the results are stored under. */
  readonly gateId: string
  readonly policy: ReplayPolicy
  readonly candidate: CandidateCallOptions
  readonly pacer: Pacer
  readonly concurrency: number
  readonly tally: ReplayTally
}

/**
 * Replays every export line (docs/ci.md "Replay"): `concurrency` workers
 * each take the next line when they are free, so that no more lines are
 * held than there are workers, and every line ends in the tally exactly
 * once. A broken export stream rejects, after the workers in flight finish.
 */
export async function replayCaptures(lines: AsyncIterator<string>, options: ReplayLoopOptions): Promise<void> {
  let broken: unknown
  const worker = async () => {
    for (;;) {
      let next: IteratorResult<string>
      try {
        next = await lines.next()
      } catch (error) {
        broken ??= error
        return
      }
      if (next.done || broken !== undefined) return
      await replayOne(next.value, options)
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, worker))
  if (broken !== undefined) throw broken
}

async function replayOne(line: string, options: ReplayLoopOptions): Promise<void> {
  const { tally } = options
  let capture: unknown
  try {
    capture = JSON.parse(line)
  } catch {
    capture = undefined
  }
  if (!isStoredCapture(capture)) {
    tally.recordFailed('unreadable', 'an export line is not a capture')
    return
  }
  const plan = planReplay(capture, Buffer.from(capture.body, 'base64'), options.policy)
  if (plan.kind === 'skip') {
    tally.recordSkipped(plan.reason)
    return
  }
  await options.pacer.take()
  const response = await callCandidate(plan.request, options.candidate)
  try {
    const summary = await options.client.json<{ has_diff: boolean }>('POST', `/gates/${options.gateId}/requests`, replayedCapture(capture, response))
    tally.recordReplayed(summary.has_diff, response.failed)
  } catch (error) {
    tally.recordFailed('not_stored', error instanceof ApiCallError ? error.message : String(error))
  }
}

/**
 * The capture stored on the replay gate: the original request as it was
 * stored (redacted, without the `--header` values), the stored live
 * response, and the candidate's answer as the shadow response; dated when
 * the candidate answered. The API redacts it and computes the diff under
 * the replay gate's settings (the source's).
 */
function replayedCapture(capture: StoredCapture, response: Awaited<ReturnType<typeof callCandidate>>) {
  const live = capture.live_response
  return {
    id: crypto.randomUUID(),
    method: capture.method,
    path: capture.path,
    ...(capture.raw_query === undefined || capture.raw_query === '' ? {} : { raw_query: capture.raw_query }),
    headers: capture.headers,
    body: capture.body,
    created_at: response.created_at,
    live_response: {
      status_code: live.status_code,
      headers: live.headers,
      body: live.body,
      latency_ms: live.latency_ms,
      created_at: live.created_at,
    },
    shadow_response: {
      status_code: response.status_code,
      headers: response.headers,
      body: Buffer.from(response.body).toString('base64'),
      latency_ms: response.latency_ms,
      created_at: response.created_at,
    },
  }
}
