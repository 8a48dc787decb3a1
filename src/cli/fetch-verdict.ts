import type { VerdictReport } from '../api/schemas/verdict-schemas.ts'
import type { TimeWindow } from '../config/verdict-cli-config.ts'
import type { ThresholdOverrides } from '../verdict/index.ts'
import type { ApiClient } from './api-client.ts'

/**
 * GET /gates/{gate_id}/verdict with the window, the thresholds and
 * ignore_noise given; the others are the gate's or the API's defaults.
 */
export function fetchVerdict(
  client: ApiClient,
  gateId: string,
  window: TimeWindow,
  thresholds: ThresholdOverrides,
  ignoreNoise?: boolean,
): Promise<VerdictReport> {
  const query = new URLSearchParams()
  if (window.from) query.set('from', window.from.toISOString())
  if (window.to) query.set('to', window.to.toISOString())
  for (const [name, value] of Object.entries(thresholds)) query.set(name, String(value))
  if (ignoreNoise !== undefined) query.set('ignore_noise', String(ignoreNoise))
  const search = query.size > 0 ? `?${query}` : ''
  return client.json<VerdictReport>('GET', `/gates/${gateId}/verdict${search}`)
}
