/**
 * A stretch of storefront traffic through the catalog canary, for the
 * screenshots: product pages, listings, search, prices and cart calls,
 * with realistic latencies, mostly identical answers and the occasional
 * difference or failure. Deterministic for a given `now`.
 */
import { capture, product } from './catalog-data.ts'
import type { CaptureBody } from './catalog-data.ts'

const CATEGORIES = ['footwear', 'apparel', 'camping', 'accessories'] as const
const QUERIES = ['trail runner', 'merino', 'tent 2p', 'headlamp', 'down jacket', 'poles'] as const
const SAME: [string, string] = ['1.42.0', '1.42.0']

/** A deterministic pseudo-random number in [0, 1) for capture `i` (an integer hash). */
function rand(i: number, salt: number): number {
  let h = Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca6b)
  h ^= h >>> 15
  h = Math.imul(h, 0x2c1b3c6d)
  h ^= h >>> 12
  return (h >>> 0) / 2 ** 32
}

/** `count` captures, the newest first, one every `everyMs` up to `now`. */
export function catalogTraffic(count: number, now: number, everyMs = 23_000): CaptureBody[] {
  return Array.from({ length: count }, (_, i) => trafficCapture(i, new Date(now - (i + 1) * everyMs).toISOString()))
}

function trafficCapture(i: number, created_at: string): CaptureBody {
  const r = rand(i, 1)
  const liveLatency = 18 + Math.round(rand(i, 2) * 70)
  const shadowLatency = Math.max(9, Math.round(liveLatency * (0.7 + rand(i, 3) * 0.7)))
  const base = { created_at, liveLatency, shadowLatency }
  const p = product(i % 40)
  const twist = rand(i, 4)

  if (r < 0.45) {
    // A product page; now and then v2 names the field `title`.
    if (twist < 0.1) {
      const { name, ...rest } = p
      return capture({ ...base, version: SAME, method: 'GET', path: `/v2/products/${p.id}`, live: p, shadow: { ...rest, title: name } })
    }
    return capture({ ...base, version: SAME, method: 'GET', path: `/v2/products/${p.id}`, live: p })
  }
  if (r < 0.6) {
    const category = CATEGORIES[i % CATEGORIES.length]!
    const items = [product(i % 7), product((i % 7) + 8), product((i % 7) + 16)]
    // v2 breaks ties in the listing order differently.
    const shadow = twist < 0.15 ? { page: 1, items: [items[1], items[0], items[2]] } : undefined
    return capture({ ...base, version: SAME, method: 'GET', path: '/v2/products', raw_query: `category=${category}&page=1`, live: { page: 1, items }, shadow })
  }
  if (r < 0.7) {
    const q = QUERIES[i % QUERIES.length]!
    return capture({ ...base, version: SAME, method: 'GET', path: '/v2/search', raw_query: `q=${encodeURIComponent(q).replace(/%20/g, '+')}`, live: { query: q, hits: [p.id, product(i + 3).id] } })
  }
  if (r < 0.8) {
    const shadow = twist < 0.2 ? { ...p.price, tax: (p.price.amount * 0.21) / 1.21 } : undefined
    return capture({ ...base, version: SAME, method: 'GET', path: `/v2/products/${p.id}/price`, live: p.price, shadow })
  }
  if (r < 0.88) {
    return capture({
      ...base,
      version: SAME,
      method: 'POST',
      path: '/v2/cart/items',
      requestHeaders: { 'Content-Type': ['application/json'], Accept: ['application/json'] },
      requestBody: { sku: p.id, quantity: 1 + (i % 3) },
      live: { cart_id: `c_${(0x81f2 + i).toString(16)}`, items: 1 + (i % 4) },
      liveStatus: 201,
      shadowStatus: 201,
    })
  }
  if (r < 0.93) {
    return capture({ ...base, version: SAME, method: 'DELETE', path: `/v2/cart/items/${p.id}`, live: '', liveStatus: 204, shadowStatus: 204 })
  }
  if (r < 0.97) {
    return capture({ ...base, version: SAME, method: 'PUT', path: `/v2/wishlist/w_${(0x19a4 + (i % 9)).toString(16)}`, requestBody: { skus: [p.id] }, live: { skus: [p.id] } })
  }
  if (r < 0.99) {
    return capture({
      ...base,
      method: 'GET',
      path: `/v2/products/${p.id}/reviews`,
      live: { sku: p.id, reviews: [], average: p.rating.average },
      shadow: { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'reviews backend unavailable' },
      shadowStatus: 500,
    })
  }
  return capture({
    ...base,
    method: 'GET',
    path: '/v2/search',
    raw_query: 'q=trail+runner',
    live: { query: 'trail runner', hits: [p.id] },
    shadow: 'Get "http://catalog-v2.canary.internal:8080/v2/search?q=trail+runner": context deadline exceeded',
    shadowStatus: 0,
    shadowHeaders: {},
    shadowLatency: 10_000,
  })
}
