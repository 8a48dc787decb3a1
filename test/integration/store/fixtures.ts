import type { CaptureInput, HeaderMap, PatchOp } from '../../../src/store/rows.ts'
import type { RequestStore } from '../../../src/store/request-store.ts'

export interface CaptureSpec {
  id?: string
  method?: string
  path?: string
  raw_query?: string
  created_at?: Date
  has_diff?: boolean
  body?: Uint8Array
  headers?: HeaderMap
  diff?: PatchOp[]
}

/** A complete capture with defaults for everything the test does not care about. */
export function capture(spec: CaptureSpec = {}): CaptureInput {
  const created = spec.created_at ?? new Date()
  const hasDiff = spec.has_diff ?? false
  return {
    id: spec.id ?? crypto.randomUUID(),
    method: spec.method ?? 'GET',
    path: spec.path ?? '/api/items',
    raw_query: spec.raw_query ?? '',
    headers: spec.headers ?? { Accept: ['application/json'] },
    body: spec.body ?? new Uint8Array(),
    created_at: created,
    live_response: {
      id: crypto.randomUUID(),
      status_code: 200,
      headers: { 'Content-Type': ['application/json'] },
      body: new TextEncoder().encode('{"a":1}'),
      latency_ms: 12,
      created_at: created,
    },
    shadow_response: {
      id: crypto.randomUUID(),
      status_code: hasDiff ? 500 : 200,
      headers: { 'Content-Type': ['application/json'] },
      body: new TextEncoder().encode(hasDiff ? '{"a":2}' : '{"a":1}'),
      latency_ms: 15,
      created_at: created,
    },
    has_diff: hasDiff,
    diff: spec.diff ?? (hasDiff ? [{ op: 'replace', path: '/body/a', value: 2 }] : []),
  }
}

/** Inserts captures a few at a time (both backends, without flooding PGlite's queue). */
export async function insertAll(store: RequestStore, gateId: string, specs: CaptureSpec[]): Promise<CaptureInput[]> {
  const captures = specs.map(capture)
  for (let i = 0; i < captures.length; i += 20) {
    await Promise.all(captures.slice(i, i + 20).map((c) => store.insert(gateId, c)))
  }
  return captures
}

/** `base` moved by `ms`. */
export function at(base: Date, ms: number): Date {
  return new Date(base.getTime() + ms)
}

export const SECOND = 1000
export const MINUTE = 60 * SECOND
export const HOUR = 60 * MINUTE
