/**
 * Captures with noise checks, for the hub's noise end-to-end test: posted
 * through createRequest with a `live_repeat_response` (live asked a second
 * time, as a proxy in API mode sends it), so the API classifies the fields
 * and suggests ignore rules from its own counts (docs/insights.md "Noise").
 */
import { capture, product } from './catalog-data.ts'
import type { CaptureBody } from './catalog-data.ts'

/** The gate the noise test fills. */
export const NOISE_GATE = { name: 'search-canary', live: 'http://search.prod.internal:8080', shadow: 'http://search-v2.canary.internal:8080' } as const

/** How many captures, and how many of them with a real difference (a price) besides the noise. */
export const NOISE_CAPTURES = { total: 30, priced: 10 } as const

/** The fields that differ on every answer of live: what the API must suggest. */
export const NOISE_FIELDS = ['body.generated_at', 'body.request_id'] as const

const SAME: [string, string] = ['3.1.0', '3.1.0']
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64')

/** A body as the service answers it: the product, stamped with the time and a fresh request id. */
function answer(n: number, at: number, price?: number) {
  const p = product(n)
  return {
    generated_at: new Date(at).toISOString(),
    request_id: crypto.randomUUID(),
    id: p.id,
    name: p.name,
    price: price ?? p.price.amount,
  }
}

/**
 * One capture a minute up to `now`: every answer carries its own
 * `generated_at` and `request_id` (live, its repeat and the shadow all
 * differ there), and the first NOISE_CAPTURES.priced also differ in price.
 */
export function noiseCaptures(now = Date.now()): CaptureBody[] {
  const out: CaptureBody[] = []
  for (let i = 0; i < NOISE_CAPTURES.total; i++) {
    const at = now - (NOISE_CAPTURES.total - i) * 60_000
    const n = i % 8
    const live = answer(n, at)
    const shadow = answer(n, at + 7, i < NOISE_CAPTURES.priced ? live.price + 1 : undefined)
    const body = capture({ version: SAME, path: `/v3/products/${product(n).id}`, live, shadow, created_at: new Date(at).toISOString() })
    const liveResponse = body.live_response as { headers: Record<string, string[]>; latency_ms: number }
    body.live_repeat_response = {
      status_code: 200,
      headers: liveResponse.headers,
      body: b64(answer(n, at + 40)),
      latency_ms: liveResponse.latency_ms + 2,
      created_at: new Date(at + 40).toISOString(),
    }
    out.push(body)
  }
  return out
}
