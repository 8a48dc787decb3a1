import type { TestApi } from './api-server.ts'

/** A capture as getRequest and exportRequests give it, bodies base64. */
export interface StoredDetail {
  id: string
  method: string
  created_at: string
  template: string | null
  signature_id: string | null
  live_response: { status_code: number; headers: Record<string, string[]>; body: string }
  shadow_response: { status_code: number; headers: Record<string, string[]>; body: string }
  live_repeat_response: { status_code: number; headers: Record<string, string[]>; body: string } | null
  diff: { content: Array<{ op: string; path: string; value?: unknown }> }
  noise: { content: unknown[] } | null
}

/** Every stored capture of a gate matching an exportRequests query, through the API. */
export async function exportedCaptures(t: TestApi, gateId: string, query = ''): Promise<StoredDetail[]> {
  const res = await t.call('GET', `/gates/${gateId}/requests/export${query}`)
  if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`)
  return (await res.text())
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as StoredDetail)
}

/** A stored response as the diff engine takes it. */
export function capturedResponse(r: { status_code: number; headers: Record<string, string[]>; body: string }) {
  return { status: r.status_code, headers: r.headers, body: new Uint8Array(Buffer.from(r.body, 'base64')) }
}
