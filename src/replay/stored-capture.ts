import type { HeaderMap } from '../diff/index.ts'

/** A stored response as the export gives it (RequestDetail's ResponsePayload, bodies base64). */
export interface StoredResponse {
  readonly id: string
  readonly status_code: number
  readonly headers: HeaderMap
  readonly body: string
  readonly latency_ms: number
  readonly created_at: string
}

/** One line of the export: a capture as RequestDetail describes it (docs/ci.md "Export"). */
export interface StoredCapture {
  readonly id: string
  readonly method: string
  readonly path: string
  readonly raw_query?: string
  readonly headers: HeaderMap
  readonly body: string
  readonly created_at: string
  readonly live_response: StoredResponse
  readonly shadow_response: StoredResponse
}

/** Whether a parsed export line has the fields a replay reads; anything else is counted as unreadable. */
export function isStoredCapture(value: unknown): value is StoredCapture {
  if (typeof value !== 'object' || value === null) return false
  const c = value as Record<string, unknown>
  const response = (r: unknown) =>
    typeof r === 'object' && r !== null && typeof (r as Record<string, unknown>).status_code === 'number' &&
    typeof (r as Record<string, unknown>).body === 'string' && typeof (r as Record<string, unknown>).headers === 'object'
  return (
    typeof c.id === 'string' && typeof c.method === 'string' && typeof c.path === 'string' && typeof c.body === 'string' &&
    typeof c.headers === 'object' && c.headers !== null && response(c.live_response)
  )
}
