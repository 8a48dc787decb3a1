/**
 * API mode startup (docs/proxy.md "API mode": the proxy fetches the
 * gate's live and shadow URLs from the API at startup): GET /gates/{id},
 * retried within SVC_APP_API_TIMEOUT. A refusal fails startup with one line
 * naming the variable at fault, like every configuration error.
 */
import type { ApiModeConfig } from '../config/proxy-config.ts'
import { ConfigError } from '../config/config-error.ts'
import type { ApiClient } from './sinks/api-client.ts'
import { BASE_URL_RULE, isBaseUrl, withoutPassword } from '../net/base-url.ts'

/** What the proxy takes from the gate. */
export interface GateInfo {
  readonly id: string
  readonly name: string
  readonly liveUrl: string
  readonly shadowUrl: string
  readonly redactedFields: readonly string[]
}

export async function fetchGate(client: ApiClient, mode: ApiModeConfig, signal?: AbortSignal): Promise<GateInfo> {
  const outcome = await client.call({ method: 'GET', path: `/gates/${mode.gateId}`, signal })
  switch (outcome.kind) {
    case 'ok':
      return parseGate(outcome.text, mode)
    case 'refused':
    case 'rejected':
      if (outcome.status === 401 || outcome.status === 403) {
        throw new ConfigError('SVC_APP_API_KEY', mode.apiKey, `was refused by the API at ${withoutPassword(mode.apiUrl)} (HTTP ${outcome.status})`, true)
      }
      if (outcome.status === 404) {
        throw new ConfigError('SVC_APP_GATE_ID', mode.gateId, `names no gate at ${withoutPassword(mode.apiUrl)} (HTTP 404)`)
      }
      throw new ConfigError('SVC_APP_GATE_ID', mode.gateId, `could not be fetched from ${withoutPassword(mode.apiUrl)} (HTTP ${outcome.status})`)
    case 'failed':
      throw new ConfigError(
        'SVC_APP_API_URL',
        mode.apiUrl,
        outcome.endedBy === 'deadline'
          ? `gave no answer to GET /gates/${mode.gateId} within SVC_APP_API_TIMEOUT (${outcome.attempts} attempts, the last: ${outcome.reason})`
          : `failed GET /gates/${mode.gateId} on every attempt (${outcome.attempts}, SVC_APP_MAX_RETRIES + 1; the last: ${outcome.reason})`,
      )
    case 'breaker-open':
      throw new ConfigError('SVC_APP_API_URL', mode.apiUrl, 'is unavailable (circuit breaker open)')
    case 'aborted':
      throw new ConfigError('SVC_APP_API_URL', mode.apiUrl, 'gate fetch aborted by shutdown')
  }
}

function parseGate(text: string, mode: ApiModeConfig): GateInfo {
  let gate: Record<string, unknown> | undefined
  try {
    const parsed = JSON.parse(text) as { data?: Record<string, unknown> }
    gate = parsed.data
  } catch {
    gate = undefined
  }
  const liveUrl = gate?.['live_url']
  const shadowUrl = gate?.['shadow_url']
  if (typeof liveUrl !== 'string' || typeof shadowUrl !== 'string' || !isBaseUrl(liveUrl) || !isBaseUrl(shadowUrl)) {
    throw new ConfigError('SVC_APP_API_URL', mode.apiUrl, `answered GET /gates/${mode.gateId} without a gate whose live_url and shadow_url are each ${BASE_URL_RULE}`)
  }
  const redacted = gate?.['redacted_fields']
  return Object.freeze({
    id: mode.gateId,
    name: typeof gate?.['name'] === 'string' ? (gate['name'] as string) : '',
    liveUrl: liveUrl.replace(/\/+$/, ''),
    shadowUrl: shadowUrl.replace(/\/+$/, ''),
    redactedFields: Object.freeze(Array.isArray(redacted) ? redacted.filter((f): f is string => typeof f === 'string') : []),
  })
}

