/**
 * The two small services the demo puts behind the proxy: a product catalog
 * as "live", and a candidate build of it as "shadow" that differs the way
 * real candidates do: a renamed field, a float off by a little, a reordered
 * array, an occasional 500 and a slower endpoint. Both put the noise a
 * real service has (a timestamp and a request id) in every body, errors
 * included: two answers never match until the demo gate ignores them.
 */
export type SampleFlavour = 'live' | 'shadow'

interface Product {
  id: number
  name: string
  price: number
  tags: string[]
  stock: number
}

const PRODUCTS: readonly Product[] = Object.freeze([
  { id: 1, name: 'Espresso beans 1 kg', price: 24.5, tags: ['coffee', 'beans', 'dark'], stock: 40 },
  { id: 2, name: 'Pour-over kettle', price: 49.99, tags: ['kettle', 'brewing'], stock: 12 },
  { id: 3, name: 'Burr grinder', price: 129, tags: ['grinder', 'brewing', 'electric'], stock: 5 },
  { id: 4, name: 'Paper filters (100)', price: 6.25, tags: ['filters', 'brewing'], stock: 300 },
  { id: 5, name: 'Travel mug', price: 18, tags: ['mug', 'travel'], stock: 0 },
])

export interface SampleService {
  readonly url: string
  stop(): Promise<void>
}

let lastMicros = 0

/**
 * An RFC 3339 time to the microsecond, never the same twice: to the
 * millisecond, live and shadow (and live's repeat for a noise check),
 * answering within one millisecond, gave the same `generated_at`, which
 * then read as noise in only some of the captures.
 */
export function clockReading(): string {
  const micros = Math.max(Math.floor((performance.timeOrigin + performance.now()) * 1000), lastMicros + 1)
  lastMicros = micros
  const iso = new Date(Math.floor(micros / 1000)).toISOString()
  return `${iso.slice(0, -1)}${String(micros % 1000).padStart(3, '0')}Z`
}

/** Starts one flavour on 127.0.0.1 (port 0 picks a free one). */
export function startSampleService(flavour: SampleFlavour, port = 0): SampleService {
  let served = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    reusePort: false,
    async fetch(request) {
      served++
      const url = new URL(request.url)
      const noise = { generated_at: clockReading(), request_id: crypto.randomUUID() }
      const shadow = flavour === 'shadow'
      if (url.pathname === '/api/products') {
        const items = PRODUCTS.map((p) => listView(p, shadow))
        return Response.json({ ...noise, total: items.length, items })
      }
      const match = /^\/api\/products\/(\d+)$/.exec(url.pathname)
      if (match) {
        const product = PRODUCTS.find((p) => p.id === Number(match[1]))
        if (!product) return Response.json({ ...noise, error: 'not found' }, { status: 404 })
        // The candidate fails now and then, the way a new build under load does.
        if (shadow && served % 17 === 0) return Response.json({ ...noise, error: 'internal error' }, { status: 500 })
        return Response.json({ ...noise, product: productView(product, shadow) })
      }
      if (url.pathname === '/api/search') {
        const q = (url.searchParams.get('q') ?? '').toLowerCase()
        const hits = PRODUCTS.filter((p) => p.name.toLowerCase().includes(q) || p.tags.includes(q))
        const ordered = shadow ? [...hits].reverse() : hits
        return Response.json({ ...noise, query: q, hits: ordered.map((p) => ({ id: p.id, name: p.name })) })
      }
      if (url.pathname === '/api/recommendations') {
        // The candidate's new ranking is slower.
        await Bun.sleep(shadow ? 180 : 20)
        return Response.json({ ...noise, items: [3, 1, 2] })
      }
      if (url.pathname === '/health') return new Response('ok')
      return Response.json({ ...noise, error: 'not found' }, { status: 404 })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    async stop() {
      await server.stop(true)
    },
  }
}

/**
 * One product: the candidate's prices are 0.04 % higher, rounded to the
 * cent. The gate tolerates 0.015, so a cent of rounding is quiet and the
 * larger changes (49.99 → 50.01, 129 → 129.05) show.
 */
function productView(product: Product, shadow: boolean) {
  const price = shadow ? Math.round(product.price * 1.0004 * 100) / 100 : product.price
  return { id: product.id, name: product.name, price, tags: product.tags, stock: product.stock }
}

/** The list: the candidate renamed `stock` to `in_stock` and sorts tags. */
function listView(product: Product, shadow: boolean) {
  const { stock, tags, ...rest } = productView(product, shadow)
  return shadow ? { ...rest, tags: [...tags].sort(), in_stock: stock } : { ...rest, tags, stock }
}
