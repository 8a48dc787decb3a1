/**
 * createRequest bodies for the ingest benchmark, as a proxy in API mode
 * sends them (docs/reference/api.md "createRequest", no `diff`: the API
 * computes it): 2 KB
 * JSON live and shadow bodies, base64; the shadow differs from live in
 * about 1% of its leaves for a share of the captures, and is identical for
 * the rest. Generated from a fixed seed, so every run sends the same bytes.
 */
import { seededRandom } from '../fixtures/api-like.ts'
import { captureBody } from '../../support/captures.ts'

export interface CaptureBodiesOptions {
  /** Distinct bodies (the load generator cycles through them). @default 256 */
  readonly count?: number
  /** Share of captures whose shadow differs from live. @default 0.2 */
  readonly diffShare?: number
  /** Size of each response body's JSON text. @default 2048 */
  readonly bytes?: number
  /** The captures' created_at. @default now */
  readonly createdAt?: Date
}

export interface CaptureBodies {
  /** JSON texts of createRequest bodies. */
  readonly bodies: string[]
  /** How many of them carry a shadow that differs from live. */
  readonly withDiff: number
  /** Mean size of one createRequest body, bytes. */
  readonly meanBytes: number
}

/**
 * The path of the i-th body: the big gate's own path families (seed.ts
 * SEED_PATHS), so that what ingest adds is traffic of the same service and a
 * path filter read afterwards sees one gate, not two services glued together.
 * `/users/42`, the rare path of the reads, is never ingested. docs/storage.md
 * "Rollups: why and how exact" (path filter) measures the other case: a filter
 * that no recent capture matches.
 */
function ingestPath(i: number): string {
  if (i % 4 === 0) return `/orders/${i % 100}`
  const id = i % 100 === 42 ? 43 : i % 100
  return i % 4 === 2 ? `/products/${id}` : `/users/${id}`
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

const CITIES = ['Lisbon', 'Osaka', 'Lagos', 'Quito', 'Tartu', 'Perth']

export function makeCaptureBodies(options: CaptureBodiesOptions = {}): CaptureBodies {
  const count = options.count ?? 256
  const diffShare = options.diffShare ?? 0.2
  const bytes = options.bytes ?? 2048
  const createdAt = (options.createdAt ?? new Date()).toISOString()
  const random = seededRandom(20_251_121)
  const bodies: string[] = []
  let withDiff = 0
  for (let i = 0; i < count; i++) {
    const live = makeDocument(random, bytes, i)
    const differs = random() < diffShare
    const shadow = differs ? changeLeaves(random, live, 0.01) : live
    if (differs) withDiff++
    const post = i % 4 === 0
    bodies.push(
      JSON.stringify(
        captureBody({
          method: post ? 'POST' : 'GET',
          path: ingestPath(i),
          raw_query: post ? undefined : 'expand=orders',
          created_at: createdAt,
          requestHeaders: { Accept: ['application/json'], 'User-Agent': ['bench-client/1.0'], Authorization: ['Bearer not-a-real-token'] },
          requestBody: post ? { customer_id: 1000 + i, items: [{ sku: 'SKU-1', quantity: 2 }] } : '',
          live,
          shadow,
          liveHeaders: { 'Content-Type': ['application/json'], Date: ['Fri, 21 Nov 2025 10:00:00 GMT'], 'X-Request-Id': ['a'] },
          shadowHeaders: { 'Content-Type': ['application/json'], Date: ['Fri, 21 Nov 2025 10:00:01 GMT'], 'X-Request-Id': ['b'] },
        }),
      ),
    )
  }
  const meanBytes = bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0) / bodies.length
  return { bodies, withDiff, meanBytes }
}

/** A customer-list response of about `bytes` bytes of JSON text. */
function makeDocument(random: () => number, bytes: number, seq: number): Json {
  const data: Json[] = []
  const doc: { [key: string]: Json } = {
    data,
    pagination: { limit: 0, offset: 0, total: 0, has_more: false },
    meta: { request_id: `b7f3c2a1-0000-4000-8000-${String(seq).padStart(12, '0')}`, region: 'eu-west-1' },
  }
  for (let id = 1; JSON.stringify(doc).length < bytes - 150; id++) {
    data.push({
      id: seq * 100 + id,
      name: `Customer ${seq * 100 + id}`,
      email: `customer.${id}@example.org`,
      active: random() < 0.8,
      balance: Math.round(random() * 1e7) / 100,
      city: CITIES[Math.floor(random() * CITIES.length)]!,
      tags: ['eu', random() < 0.5 ? 'vip' : 'trial'],
    })
  }
  doc.pagination = { limit: data.length, offset: 0, total: data.length * 7, has_more: true }
  return doc
}

/** A copy with about `fraction` of the leaves changed (at least one). */
function changeLeaves(random: () => number, live: Json, fraction: number): Json {
  const copy = structuredClone(live)
  const leaves: Array<{ parent: Record<string | number, Json>; key: string | number }> = []
  const visit = (value: Json) => {
    if (typeof value !== 'object' || value === null) return
    const entries: Array<[string | number, Json]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value)
    for (const [key, item] of entries) {
      if (typeof item === 'object' && item !== null) visit(item)
      else leaves.push({ parent: value as Record<string | number, Json>, key })
    }
  }
  visit(copy)
  const changes = Math.max(1, Math.round(leaves.length * fraction))
  for (let c = 0; c < changes; c++) {
    const { parent, key } = leaves[Math.floor(random() * leaves.length)]!
    const old = parent[key]
    parent[key] = typeof old === 'number' ? old + 1 : typeof old === 'boolean' ? !old : `${String(old)}-v2`
  }
  return copy
}
