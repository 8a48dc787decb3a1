/** Paths the demo traffic walks through, weighted toward the catalog. */
const PATHS = [
  '/api/products',
  '/api/products/1',
  '/api/products/2',
  '/api/products/3',
  '/api/products/4',
  '/api/products/5',
  '/api/products/99',
  '/api/search?q=brewing',
  '/api/search?q=coffee',
  '/api/recommendations',
] as const

export interface TrafficGenerator {
  readonly sent: number
  stop(): void
}

/**
 * Sends a gentle, steady stream of GETs (and an occasional POST, which the
 * base shadow rules keep live-only) to the proxy, so the hub fills with
 * captures without loading the machine.
 */
export function startTrafficGenerator(proxyUrl: string, perSecond = 4): TrafficGenerator {
  let sent = 0
  let stopped = false
  const tick = () => {
    if (stopped) return
    const path = sent % 25 === 24 ? '/api/orders' : PATHS[sent % PATHS.length]!
    const method = path === '/api/orders' ? 'POST' : 'GET'
    sent++
    fetch(proxyUrl + path, {
      method,
      headers: { 'content-type': 'application/json', 'user-agent': 'svc-demo-traffic' },
      body: method === 'POST' ? JSON.stringify({ product_id: 1, quantity: 2 }) : undefined,
    })
      .then((res) => res.arrayBuffer())
      .catch(() => undefined)
  }
  const timer = setInterval(tick, Math.max(10, Math.round(1000 / perSecond)))
  return {
    get sent() {
      return sent
    },
    stop() {
      stopped = true
      clearInterval(timer)
    },
  }
}
