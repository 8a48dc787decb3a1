import { ApiCallError } from '../cli/api-call-error.ts'
import type { ApiClient } from '../cli/api-client.ts'
import { withoutPassword } from '../net/base-url.ts'

/** A gate as the API returns it, in what a replay reads of it. */
export interface GateResource {
  readonly id: string
  readonly name: string
  readonly live_url: string
  readonly shadow_url: string
  readonly [setting: string]: unknown
}

/** The longest gate name the API takes. */
const MAX_NAME = 200

/**
 * The settings a replay gate takes over from its source on every run, so
 * that its diffs, redaction, endpoints and verdict thresholds are the
 * source's own (each copied when the source gate has it).
 */
export const COPIED_SETTINGS = ['diff_config', 'redacted_fields', 'endpoints', 'verdict'] as const

/**
 * `replay: <source name> -> <target>`: the same for every run of the same
 * source against the same candidate, so that the gate is reused. A long
 * source name is shortened to fit the API's 200 characters.
 */
export function replayGateName(sourceName: string, target: string): string {
  // Gate names are listed to every key holder and shown in the hub: never a password.
  const suffix = ` -> ${withoutPassword(target)}`
  const room = MAX_NAME - 'replay: '.length - suffix.length
  const name = sourceName.length > room ? `${sourceName.slice(0, Math.max(0, room - 1))}…` : sourceName
  return `replay: ${name}${suffix}`.slice(0, MAX_NAME)
}

/**
 * The replay gate of `source` against `target` (docs/ci.md "Replay"):
 * found by its name, or created with shadow_url = the target; then given
 * the source's COPIED_SETTINGS.
 */
export async function ensureReplayGate(client: ApiClient, source: GateResource, target: string): Promise<GateResource> {
  const name = replayGateName(source.name, target)
  const gate = (await findByName(client, name)) ?? (await createReplayGate(client, name, source, target))
  const settings = Object.fromEntries(COPIED_SETTINGS.filter((key) => source[key] !== undefined).map((key) => [key, source[key]]))
  return Object.keys(settings).length > 0 ? client.json<GateResource>('PATCH', `/gates/${gate.id}`, settings) : gate
}

/**
 * A new replay gate, live_url the source's live. A gate is unique by its
 * URL pair, and that pair can be another gate's: the source's own when the
 * target is the candidate it already shadows. Then live_url is the source
 * gate's URL on the API, where the live answers replayed against come
 * from. A 409 with the name found meanwhile is another run's gate, taken.
 */
async function createReplayGate(client: ApiClient, name: string, source: GateResource, target: string): Promise<GateResource> {
  let refusal: ApiCallError | undefined
  for (const liveUrl of [source.live_url, client.urlOf(`/gates/${source.id}`)]) {
    try {
      return await client.json<GateResource>('POST', '/gates', { name, live_url: liveUrl, shadow_url: target })
    } catch (error) {
      if (!(error instanceof ApiCallError && error.status === 409)) throw error
      const made = await findByName(client, name)
      if (made !== undefined) return made
      refusal = error
    }
  }
  throw new ApiCallError(`cannot create the replay gate "${name}": its URL pairs are other gates' (${refusal?.message})`, 409)
}

async function findByName(client: ApiClient, name: string): Promise<GateResource | undefined> {
  const gates = await client.json<GateResource[]>('GET', `/gates?${new URLSearchParams({ name, limit: '100' })}`)
  return gates.find((gate) => gate.name === name)
}
