/**
 * The upstreams of the proxy benchmark: `bun run fleet.ts <sleepMs>
 * <variant> <port>...` serves a 2 KB JSON document on every port (one port
 * per scenario, so that TIME_WAIT sockets can be told apart), after
 * `sleepMs` when not 0. The variant says how a shadow differs from live:
 *
 *   same   every response is live's document, byte for byte
 *   tenth  one response in ten has one field changed (on each port, the 10th, 20th, ...)
 *   every  every response has that field changed
 */

/** What a shadow answers, against live's document. */
export const SHADOW_VARIANTS = ['same', 'tenth', 'every'] as const
export type ShadowVariant = (typeof SHADOW_VARIANTS)[number]

function document(changed: boolean): string {
  return JSON.stringify({
    data: Array.from({ length: 14 }, (_, i) => ({
      id: 1000 + i,
      sku: `SKU-${(i * 7919) % 100_000}`,
      name: `Product number ${i}`,
      // The changed field keeps the length: a candidate that differs in one value.
      price: changed && i === 2 ? 24.68 : Math.round(i * 1234.5) / 100,
      currency: 'EUR',
      tags: ['catalog', 'bench'],
      available: i % 2 === 0,
    })),
    pagination: { limit: 14, offset: 0, total: 14, has_more: false },
  })
}

/** The 2 KB JSON document every live upstream answers. */
export const BENCH_BODY = document(false)
/** The same document with one field changed (the third item's price). */
export const DIFFERENT_BODY = document(true)

function serve(sleepMs: number, variant: ShadowVariant, ports: number[]): void {
  const headers = { 'content-type': 'application/json' }
  for (const port of ports) {
    let n = 0
    const answer = () => {
      n++
      const changed = variant === 'every' || (variant === 'tenth' && n % 10 === 0)
      return new Response(changed ? DIFFERENT_BODY : BENCH_BODY, { headers })
    }
    Bun.serve({
      hostname: '127.0.0.1',
      port,
      idleTimeout: 120,
      fetch: sleepMs > 0 ? () => Bun.sleep(sleepMs).then(answer) : answer,
    })
  }
}

if (import.meta.main) {
  const [sleepMs, variant, ...ports] = process.argv.slice(2)
  if (!(SHADOW_VARIANTS as readonly string[]).includes(variant ?? '')) throw new Error(`fleet: unknown variant ${variant}`)
  serve(Number(sleepMs), variant as ShadowVariant, ports.map(Number))
}
