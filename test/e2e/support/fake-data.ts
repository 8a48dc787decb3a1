/**
 * Spec-shaped data for the hub's smoke test and screenshots: gates with
 * stats, captured requests, and details whose diff is a real RFC 6902 patch
 * from the live document `{status, headers, body}` to the shadow one.
 * Deterministic, so screenshots are stable.
 */

export interface FakeGate {
  id: string
  name: string
  live_url: string
  shadow_url: string
  diff_config: { ignored_fields: string[]; included_fields: string[]; float_tolerance: number; sort_arrays: boolean }
  redacted_fields: string[]
  retention: string
  endpoints: string[]
  created_at: string
  stats: { request_count_24h: number; diff_count_24h: number; diff_rate: number; last_active: string | null }
}

export interface FakeResponse {
  id: string
  status_code: number
  headers: Record<string, string[]>
  body: string
  latency_ms: number
  created_at: string
}

export interface FakeRequest {
  id: string
  method: string
  path: string
  raw_query?: string
  headers: Record<string, string[]>
  body: string
  created_at: string
  live_response: FakeResponse
  shadow_response: FakeResponse
  diff: { content: { op: 'add' | 'remove' | 'replace'; path: string; value?: unknown }[] }
}

export interface FakeData {
  gates: FakeGate[]
  requests: Map<string, FakeRequest[]>
  retention: string
}

/** Times are relative to the start of the current minute, so "3 min ago" reads right. */
export const NOW = Math.floor(Date.now() / 60_000) * 60_000

const b64 = (text: string | Uint8Array) => Buffer.from(text).toString('base64')

/** A stable UUID v4-shaped id from two numbers. */
function uuid(n: number, salt: number): string {
  const hex = (x: string) => Bun.hash(x).toString(16).padStart(16, '0')
  const h = hex(`${n}:${salt}:a`) + hex(`${n}:${salt}:b`)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}

function gate(i: number, name: string, live: string, shadow: string, stats: Partial<FakeGate['stats']>, ageDays: number): FakeGate {
  const requests = stats.request_count_24h ?? 0
  const diffs = stats.diff_count_24h ?? 0
  return {
    id: uuid(i + 1, 11),
    name,
    live_url: live,
    shadow_url: shadow,
    diff_config: { ignored_fields: [], included_fields: [], float_tolerance: 0, sort_arrays: false },
    redacted_fields: [],
    retention: '',
    endpoints: [],
    created_at: new Date(NOW - ageDays * 86_400_000).toISOString(),
    stats: {
      request_count_24h: requests,
      diff_count_24h: diffs,
      diff_rate: requests ? diffs / requests : 0,
      last_active: stats.last_active === undefined ? new Date(NOW - (i + 1) * 97_000).toISOString() : stats.last_active,
    },
  }
}

const ORDER_LIVE = {
  order_id: 'ord_8f2c41',
  status: 'confirmed',
  currency: 'EUR',
  items: [
    { sku: 'A-100', name: 'Espresso beans 1 kg', qty: 2, price: 19.99 },
    { sku: 'B-220', name: 'Paper filters', qty: 1, price: 5.5 },
    { sku: 'C-310', name: 'Descaler', qty: 1, price: 8.9 },
  ],
  shipping: { method: 'standard', cost: 4.95, eta_days: 3 },
  discount: { code: 'SPRING10', amount: 5.43 },
  total: 53.9,
  customer: { id: 'cus_9132', tier: 'gold', email: '[REDACTED]' },
}

function orderShadow() {
  const s = structuredClone(ORDER_LIVE) as Record<string, unknown> & typeof ORDER_LIVE
  s.items[1]!.price = 5.75
  s.total = 54.15
  delete (s as Partial<typeof ORDER_LIVE>).discount
  ;(s as Record<string, unknown>).tax = { rate: 0.2, amount: 9.03 }
  s.shipping.eta_days = 2
  return s
}

const ORDER_PATCH: FakeRequest['diff']['content'] = [
  { op: 'replace', path: '/headers/X-Service-Version/0', value: '2.0.0-rc.3' },
  { op: 'add', path: '/headers/X-Pricing-Engine', value: ['v2'] },
  { op: 'replace', path: '/body/items/1/price', value: 5.75 },
  { op: 'replace', path: '/body/shipping/eta_days', value: 2 },
  { op: 'remove', path: '/body/discount' },
  { op: 'replace', path: '/body/total', value: 54.15 },
  { op: 'add', path: '/body/tax', value: { rate: 0.2, amount: 9.03 } },
]

const PATHS = [
  ['GET', '/api/orders/ord_8f2c41', ''],
  ['GET', '/api/orders', 'status=open&limit=20'],
  ['POST', '/api/cart/checkout', ''],
  ['GET', '/api/products/A-100', ''],
  ['GET', '/api/customers/cus_9132/orders', 'page=2'],
  ['PUT', '/api/cart/items/B-220', ''],
  ['GET', '/health/ready', ''],
  ['DELETE', '/api/cart/items/C-310', ''],
] as const

function response(id: string, status: number, headers: Record<string, string[]>, body: string | Uint8Array, latency: number, at: number): FakeResponse {
  return { id, status_code: status, headers, body: b64(body), latency_ms: latency, created_at: new Date(at).toISOString() }
}

function requestsFor(count: number, salt: number): FakeRequest[] {
  const out: FakeRequest[] = []
  for (let i = 0; i < count; i++) {
    const at = NOW - i * 41_000 - salt * 1000
    const [method, path, query] = PATHS[i % PATHS.length]!
    const hasDiff = i % 4 === 0 || i % 7 === 3
    const id = uuid(i + 1, salt)
    const liveHeaders = {
      'Content-Type': ['application/json'],
      'X-Service-Version': ['1.14.2'],
      'Cache-Control': ['no-store'],
    }
    let live: FakeResponse
    let shadow: FakeResponse
    let diff: FakeRequest['diff']['content'] = []
    const liveBody = JSON.stringify(ORDER_LIVE)
    if (i === 5) {
      // A shadow that failed is stored with status 0 and the error text.
      live = response(uuid(i, salt + 1), 200, liveHeaders, liveBody, 38, at)
      shadow = response(uuid(i, salt + 2), 0, {}, 'dial tcp 10.0.4.17:8080: connect: connection refused', 3, at)
      diff = [
        { op: 'replace', path: '/status', value: 0 },
        { op: 'remove', path: '/headers/Cache-Control' },
        { op: 'remove', path: '/headers/Content-Type' },
        { op: 'remove', path: '/headers/X-Service-Version' },
        { op: 'replace', path: '/body', value: 'dial tcp 10.0.4.17:8080: connect: connection refused' },
      ]
    } else if (hasDiff) {
      live = response(uuid(i, salt + 1), 200, liveHeaders, liveBody, 30 + (i % 9) * 7, at)
      shadow = response(
        uuid(i, salt + 2),
        200,
        { ...liveHeaders, 'X-Service-Version': ['2.0.0-rc.3'], 'X-Pricing-Engine': ['v2'] },
        JSON.stringify(orderShadow()),
        41 + (i % 5) * 11,
        at,
      )
      diff = ORDER_PATCH
    } else {
      live = response(uuid(i, salt + 1), method === 'DELETE' ? 204 : 200, liveHeaders, method === 'DELETE' ? '' : liveBody, 25 + (i % 6) * 5, at)
      shadow = response(uuid(i, salt + 2), live.status_code, liveHeaders, method === 'DELETE' ? '' : liveBody, 28 + (i % 4) * 6, at)
    }
    out.push({
      id,
      method,
      path,
      ...(query ? { raw_query: query } : {}),
      headers: {
        Accept: ['application/json'],
        Authorization: ['[REDACTED]'],
        'User-Agent': ['checkout-web/4.2.0'],
        ...(method === 'POST' || method === 'PUT' ? { 'Content-Type': ['application/json'] } : {}),
      },
      body: method === 'POST' || method === 'PUT' ? b64(JSON.stringify({ cart_id: 'crt_77a1', coupon: 'SPRING10' })) : '',
      created_at: new Date(at).toISOString(),
      live_response: live,
      shadow_response: shadow,
      diff: { content: diff },
    })
  }
  return out
}

/** A 1 MB JSON body with one changed field deep inside, for the "does not freeze" check. */
export function largeRequest(salt: number): FakeRequest {
  const items = Array.from({ length: 6000 }, (_, i) => ({
    id: i,
    sku: `SKU-${String(i).padStart(6, '0')}`,
    title: `Catalogue entry number ${i} with a reasonably long descriptive title`,
    tags: ['alpha', 'beta', 'gamma'],
    price: Math.round(i * 1.37 * 100) / 100,
    stock: { warehouse: 'fra-1', count: i % 50 },
  }))
  const liveBody = JSON.stringify({ page: 1, items })
  const shadowItems = structuredClone(items)
  shadowItems[4321]!.price = 9999.99
  const shadowBody = JSON.stringify({ page: 1, items: shadowItems })
  const at = NOW - 5_000
  return {
    id: uuid(9999, salt),
    method: 'GET',
    path: '/api/catalogue',
    raw_query: 'page=1&size=6000',
    headers: { Accept: ['application/json'] },
    body: '',
    created_at: new Date(at).toISOString(),
    live_response: response(uuid(1, salt + 5), 200, { 'Content-Type': ['application/json'] }, liveBody, 180, at),
    shadow_response: response(uuid(2, salt + 5), 200, { 'Content-Type': ['application/json'] }, shadowBody, 240, at),
    diff: { content: [{ op: 'replace', path: '/body/items/4321/price', value: 9999.99 }] },
  }
}

export function fakeData(): FakeData {
  const gates = [
    gate(0, 'checkout-api', 'http://checkout.prod.internal:8080', 'http://checkout-v2.canary.internal:8080', { request_count_24h: 18_452, diff_count_24h: 2_214 }, 21),
    gate(1, 'catalogue-search', 'http://search.prod.internal', 'http://search-next.staging.internal', { request_count_24h: 96_310, diff_count_24h: 611 }, 48),
    gate(2, 'pricing-service', 'https://pricing.prod.internal', 'https://pricing-rust.shadow.internal', { request_count_24h: 7_905, diff_count_24h: 12 }, 9),
    gate(3, 'accounts-legacy', 'http://accounts.prod.internal:9000', 'http://accounts-go.shadow.internal:9000', { request_count_24h: 2_118, diff_count_24h: 0 }, 90),
    gate(4, 'inventory-sync', 'http://inventory.prod.internal', 'http://inventory.next.internal', { request_count_24h: 0, diff_count_24h: 0, last_active: null }, 2),
  ]
  gates[0]!.diff_config = { ignored_fields: ['body.**.updated_at', 'headers.X-Request-Id'], included_fields: [], float_tolerance: 0.001, sort_arrays: false }
  gates[0]!.redacted_fields = ['body.customer.email']
  const requests = new Map<string, FakeRequest[]>()
  gates.forEach((g, i) => {
    const list = i === 4 ? [] : requestsFor(i === 0 ? 137 : 23, 100 + i * 10)
    if (i === 0) list.splice(1, 0, largeRequest(7))
    requests.set(g.id, list)
  })
  return { gates, requests, retention: '720h' }
}
