/**
 * Realistic captures of a product catalogue moving to a v2 service, for the
 * real-API end-to-end tests and the screenshots: createRequest bodies
 * (docs/reference/api.md) built with captureBody, with the kinds of difference
 * a canary shows (a renamed field, a float computed differently, a reordered
 * array, a shadow 500, a shadow that did not answer). Deterministic.
 */
import { captureBody } from '../../support/captures.ts'
import type { CaptureSpec } from '../../support/captures.ts'

export type CaptureBody = ReturnType<typeof captureBody>

export interface Product {
  id: string
  name: string
  brand: string
  category: string
  price: { amount: number; currency: string; tax_rate: number; tax: number }
  stock: { available: number; warehouse: string }
  rating: { average: number; count: number }
  tags: string[]
  images: string[]
  updated_at: string
}

const BRANDS = ['Northpeak', 'Alder & Co', 'Kestrel', 'Fjordline', 'Mosswood', 'Tidewater'] as const
const ITEMS = [
  ['Trail Runner GTX', 'footwear', ['waterproof', 'trail', 'running']],
  ['Merino Base Layer', 'apparel', ['merino', 'base-layer']],
  ['Ultralight Tent 2P', 'camping', ['ultralight', 'tent', '3-season']],
  ['Insulated Bottle 750 ml', 'accessories', ['steel', 'insulated']],
  ['Down Jacket 800', 'apparel', ['down', 'packable', 'winter']],
  ['Headlamp 400 lm', 'accessories', ['rechargeable', 'usb-c']],
  ['Approach Shoe', 'footwear', ['climbing', 'suede']],
  ['Carbon Trekking Poles', 'accessories', ['carbon', 'foldable']],
] as const
const WAREHOUSES = ['AMS-2', 'FRA-1', 'DUB-3'] as const

const round2 = (x: number) => Math.round(x * 100) / 100
/** A fixed instant, so product bodies (and screenshots) do not change between runs. */
const UPDATED = Date.UTC(2025, 5, 2, 8, 30)

/** Product `n` as the live catalogue (v1) serves it. */
export function product(n: number): Product {
  const [title, category, tags] = ITEMS[n % ITEMS.length]!
  const brand = BRANDS[(n * 7) % BRANDS.length]!
  const id = `sku-${10000 + ((n * 7919) % 90000)}`
  const amount = round2(24.9 + ((n * 37) % 260) + 0.05 * (n % 3))
  return {
    id,
    name: `${brand} ${title}`,
    brand,
    category,
    price: { amount, currency: 'EUR', tax_rate: 0.21, tax: round2((amount * 0.21) / 1.21) },
    stock: { available: (n * 13) % 140, warehouse: WAREHOUSES[n % WAREHOUSES.length]! },
    rating: { average: round2(3.6 + (n % 14) / 10), count: 12 + ((n * 11) % 900) },
    tags: [...tags],
    images: [`https://cdn.shop.example/p/${id}/front.jpg`, `https://cdn.shop.example/p/${id}/side.jpg`],
    updated_at: new Date(UPDATED + n * 61_000).toISOString(),
  }
}

/** A capture with realistic headers and latencies (captureBody fixes them at 12 / 15 ms). */
export function capture(
  spec: CaptureSpec & { liveLatency?: number; shadowLatency?: number; version?: [string, string] },
): CaptureBody {
  const [liveVersion, shadowVersion] = spec.version ?? ['1.42.0', '2.0.0-rc.4']
  const body = captureBody({
    requestHeaders: { Accept: ['application/json'], 'User-Agent': ['shop-web/5.12 (+storefront)'], 'X-Request-Id': ['2f9c1a7e-58d4-4b0e-9a61-0c3d7be41f20'] },
    liveHeaders: { 'Content-Type': ['application/json'], 'Cache-Control': ['max-age=60'], 'X-Catalog-Version': [liveVersion] },
    shadowHeaders: { 'Content-Type': ['application/json'], 'Cache-Control': ['max-age=60'], 'X-Catalog-Version': [shadowVersion] },
    ...spec,
  })
  const live = body.live_response as { latency_ms: number }
  const shadow = body.shadow_response as { latency_ms: number }
  live.latency_ms = spec.liveLatency ?? 38
  shadow.latency_ms = spec.shadowLatency ?? 44
  return body
}

/** The named captures the end-to-end test looks for, one kind of difference each. */
export function scenarios(now = Date.now()) {
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString()
  const same = { version: ['1.42.0', '1.42.0'] as [string, string] }
  const p = (n: number) => product(n)
  const renamed = (() => {
    const { name, ...rest } = p(2)
    return { ...rest, title: name }
  })()
  const tags = p(3).tags
  return {
    identical: capture({ ...same, method: 'GET', path: `/v2/products/${p(1).id}`, live: p(1), created_at: at(9) }),
    renamed: capture({ ...same, method: 'GET', path: `/v2/products/${p(2).id}`, live: p(2), shadow: renamed, created_at: at(8) }),
    float: capture({
      ...same,
      method: 'GET',
      path: `/v2/products/${p(4).id}/price`,
      live: p(4).price,
      shadow: { ...p(4).price, tax: (p(4).price.amount * 0.21) / 1.21 },
      created_at: at(7),
    }),
    reordered: capture({ ...same, method: 'GET', path: `/v2/products/${p(3).id}`, live: p(3), shadow: { ...p(3), tags: [...tags].reverse() }, created_at: at(6) }),
    shadow500: capture({
      method: 'GET',
      path: '/v2/products',
      raw_query: 'category=footwear&page=2',
      live: { page: 2, items: [p(0), p(6)] },
      shadow: { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'inventory lookup timed out' },
      shadowStatus: 500,
      shadowLatency: 5012,
      created_at: at(5),
    }),
    shadowError: capture({
      method: 'GET',
      path: '/v2/search',
      raw_query: 'q=trail+runner',
      live: { query: 'trail runner', hits: [p(0).id, p(6).id] },
      // A failed shadow is stored with status 0 and its error text as the body.
      shadow: 'Get "http://catalog-v2.canary.internal:8080/v2/search?q=trail+runner": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
      shadowStatus: 0,
      shadowHeaders: {},
      shadowLatency: 10_000,
      created_at: at(4),
    }),
    addToCart: capture({
      ...same,
      method: 'POST',
      path: '/v2/cart/items',
      requestHeaders: { 'Content-Type': ['application/json'], Accept: ['application/json'] },
      requestBody: { sku: p(1).id, quantity: 2 },
      live: { cart_id: 'c_81f2', items: 3, subtotal: round2(p(1).price.amount * 2) },
      liveStatus: 201,
      shadowStatus: 201,
      created_at: at(3),
    }),
    removeFromCart: capture({ ...same, method: 'DELETE', path: `/v2/cart/items/${p(1).id}`, live: '', liveStatus: 204, shadowStatus: 204, created_at: at(2) }),
    updateWishlist: capture({
      ...same,
      method: 'PUT',
      path: '/v2/wishlist/w_19a4',
      requestBody: { skus: [p(5).id, p(7).id] },
      live: { id: 'w_19a4', skus: [p(5).id, p(7).id] },
      created_at: at(1),
    }),
  }
}

export type ScenarioName = keyof ReturnType<typeof scenarios>

/**
 * The capture for the request screenshot: one product, several kinds of
 * difference at once (the header, a renamed field, a float, an added
 * field, a reordered array).
 */
export function showcase(now = Date.now()): CaptureBody {
  const live = product(12)
  const { name, ...rest } = live
  const shadow = {
    ...rest,
    title: name,
    price: { ...live.price, tax: (live.price.amount * 0.21) / 1.21 },
    stock: { ...live.stock, reserved: 3 },
    // Two tags swapped.
    tags: [live.tags[1]!, live.tags[0]!, ...live.tags.slice(2)],
  }
  return capture({ method: 'GET', path: `/v2/products/${live.id}`, raw_query: 'include=stock', live, shadow, liveLatency: 41, shadowLatency: 36, created_at: new Date(now - 20_000).toISOString() })
}

/** A catalogue page of about `bytes` of JSON whose shadow differs in one product's price. */
export function bigCatalogue(bytes: number) {
  const items: Product[] = []
  let size = 0
  for (let n = 0; size < bytes; n++) {
    const p = product(n)
    items.push(p)
    size += JSON.stringify(p).length + 1
  }
  const changed = Math.floor(items.length * 0.73)
  const shadowItems = items.map((p, i) => (i === changed ? { ...p, price: { ...p.price, amount: round2(p.price.amount + 1) } } : p))
  return { live: { page: 1, total: items.length, items }, shadow: { page: 1, total: items.length, items: shadowItems }, changed }
}
