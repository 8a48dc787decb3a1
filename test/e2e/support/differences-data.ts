/**
 * Captures whose kinds of difference are known in advance, for the
 * Differences view's end-to-end test: posted through createRequest, the API
 * compares them, gives them endpoints and signatures (docs/insights.md), and
 * the test checks the hub shows what the API counted.
 */
import { capture, product } from './catalog-data.ts'
import type { CaptureBody } from './catalog-data.ts'

const SAME: [string, string] = ['1.42.0', '1.42.0']

/** The summaries the hub must show (docs/insights.md "Summaries"), with how many captures each. */
export const EXPECTED = {
  renamed: { summary: 'GET /v2/products/{id}: only shadow /body/title, only live /body/name', count: 4 },
  tax: { summary: 'GET /v2/products/{id}/price: changed /body/tax', count: 3 },
  timeout: { summary: 'GET /v2/search: shadow timed out', count: 2 },
} as const

/** Per endpoint in the last hour: captures, diffs and errors. */
export const ENDPOINTS = {
  'GET /v2/products/{id}': { requests: 10, diffs: 4, errors: 0 },
  'GET /v2/products/{id}/price': { requests: 5, diffs: 3, errors: 0 },
  'GET /v2/search': { requests: 3, errors: 2, diffs: 0 },
  'POST /v2/cart/items': { requests: 2, diffs: 0, errors: 0 },
} as const

/**
 * The captures of the last hour, oldest first, one a minute up to `now`,
 * plus `older`: one more tax difference three hours back (in the 24 h
 * window, not in the last hour).
 */
export function differenceCaptures(now = Date.now()): { recent: CaptureBody[]; older: CaptureBody } {
  const recent: CaptureBody[] = []
  const at = (i: number) => new Date(now - (40 - i) * 60_000).toISOString()
  const add = (make: (created_at: string) => CaptureBody) => recent.push(make(at(recent.length)))
  for (let n = 0; n < 6; n++) {
    add((created_at) => capture({ version: SAME, path: `/v2/products/${product(n).id}`, live: product(n), created_at, liveLatency: 30 + n, shadowLatency: 34 + n }))
  }
  for (let n = 10; n < 14; n++) {
    const { name, ...rest } = product(n)
    add((created_at) => capture({ version: SAME, path: `/v2/products/${product(n).id}`, live: product(n), shadow: { ...rest, title: name }, created_at }))
  }
  for (let n = 20; n < 25; n++) {
    const price = product(n).price
    const shadow = n < 23 ? { ...price, tax: (price.amount * 0.21) / 1.21 } : price
    add((created_at) => capture({ version: SAME, path: `/v2/products/${product(n).id}/price`, live: price, shadow, created_at }))
  }
  add((created_at) => capture({ version: SAME, path: '/v2/search', raw_query: 'q=tent', live: { hits: [product(2).id] }, created_at }))
  for (let n = 0; n < 2; n++) {
    add((created_at) =>
      capture({
        path: '/v2/search',
        raw_query: 'q=trail+runner',
        live: { hits: [product(0).id] },
        // A failed shadow: status 0, the proxy's error text as body (docs/diff.md).
        shadow: 'shadow: timed out after 5s',
        shadowStatus: 0,
        shadowHeaders: {},
        shadowLatency: 5000,
        created_at,
      }),
    )
  }
  for (let n = 0; n < 2; n++) {
    add((created_at) =>
      capture({
        version: SAME,
        method: 'POST',
        path: '/v2/cart/items',
        requestBody: { sku: product(n).id, quantity: 1 },
        live: { items: n + 1 },
        liveStatus: 201,
        shadowStatus: 201,
        created_at,
      }),
    )
  }
  const price = product(30).price
  const older = capture({
    version: SAME,
    path: `/v2/products/${product(30).id}/price`,
    live: price,
    shadow: { ...price, tax: (price.amount * 0.21) / 1.21 },
    created_at: new Date(now - 3 * 3_600_000).toISOString(),
  })
  return { recent, older }
}

/** The gate the Differences test fills. */
export const DIFFERENCES_GATE = { name: 'pricing-canary', live: 'http://pricing.prod.internal:8080', shadow: 'http://pricing-v2.canary.internal:8080' } as const
