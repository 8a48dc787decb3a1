/**
 * Stage 2, forward live: the client gets live's response as live sent it,
 * streamed, and never waits for the shadow or the diff. For a shadowed
 * request, a copy of live's body is kept for the comparison on the way
 * (`PendingComparison.liveCopy`), and how live ended is handed to it.
 */
import { headersOf } from '../../net/field-list.ts'
import { headerMapOf } from '../upstream/header-map.ts'
import type { LiveForwarder } from './live-forwarder.ts'
import type { PendingComparison } from './pending-comparison.ts'

/** A request that is not shadowed: live's exchange and nothing else. */
export async function forwardUnshadowed(
  live: LiveForwarder,
  method: string,
  target: string,
  headers: Headers,
  body: Uint8Array | ReadableStream<Uint8Array> | null,
): Promise<Response> {
  return live.respond(await live.send(method, target, headers, body))
}

/** A shadowed request: live's exchange, its end told to the comparison. */
export async function forwardLive(live: LiveForwarder, comparison: PendingComparison): Promise<Response> {
  const { method, target, body } = comparison.request
  const started = performance.now()
  const result = await live.send(method, target, headersOf(comparison.request.headers), body)
  if (!result.ok) {
    comparison.liveFailed(result.error, result.latencyMs)
    return live.respond(result)
  }
  const { status, headers } = result.exchange.response
  // Read before the client's response is sent: Bun then drops Content-Length from these headers.
  comparison.liveAnswered(status, headerMapOf(headers), started)
  return live.respond(result, comparison)
}
