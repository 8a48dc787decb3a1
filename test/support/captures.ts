/**
 * Builders for createRequest bodies as a proxy sends them
 * (docs/reference/api.md "createRequest").
 */

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64')

export interface CaptureSpec {
  id?: string
  method?: string
  path?: string
  raw_query?: string
  created_at?: string
  requestHeaders?: Record<string, string[]>
  requestBody?: unknown
  live?: unknown
  shadow?: unknown
  liveStatus?: number
  shadowStatus?: number
  liveHeaders?: Record<string, string[]>
  shadowHeaders?: Record<string, string[]>
  diff?: Array<{ op: string; path: string; value?: unknown }>
}

export function captureBody(spec: CaptureSpec = {}) {
  const created = spec.created_at ?? new Date().toISOString()
  const json = { 'Content-Type': ['application/json'] }
  const body: Record<string, unknown> = {
    method: spec.method ?? 'GET',
    path: spec.path ?? '/api/items',
    headers: spec.requestHeaders ?? { Accept: ['application/json'] },
    body: b64(spec.requestBody ?? ''),
    created_at: created,
    live_response: {
      status_code: spec.liveStatus ?? 200,
      headers: spec.liveHeaders ?? json,
      body: b64(spec.live ?? { ok: true }),
      latency_ms: 12,
      created_at: created,
    },
    shadow_response: {
      status_code: spec.shadowStatus ?? 200,
      headers: spec.shadowHeaders ?? json,
      body: b64(spec.shadow ?? spec.live ?? { ok: true }),
      latency_ms: 15,
      created_at: created,
    },
  }
  if (spec.id) body.id = spec.id
  if (spec.raw_query) body.raw_query = spec.raw_query
  if (spec.diff) body.diff = { content: spec.diff }
  return body
}
