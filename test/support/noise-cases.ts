/**
 * The noise check (docs/proxy.md "Noise check") through real live and
 * shadow servers, as a table of cases run on the standalone proxy
 * (test/integration/proxy/noise-check.test.ts) and on the svc_gate module
 * (test/integration/module/noise-check.test.ts) with `shadowCaseSuite`.
 * Live tells the repeat apart by its `X-Svc-Mode: repeat`.
 */
import { expect } from 'bun:test'
import { NOISE_CHECK_RESULTS, NOISE_SKIP_REASONS } from '../../src/metrics/index.ts'
import type { CaseContext, ShadowCase } from './shadow-cases.ts'
import { json, type RecordedRequest } from './upstreams.ts'

const isRepeat = (request: RecordedRequest) => request.headers.get('x-svc-mode') === 'repeat'

async function drained(response: Response): Promise<Response> {
  await response.arrayBuffer()
  return response
}

/** The noise counters: results and skips by label value, of gate "". */
async function noiseCounts(c: CaseContext) {
  const results: Record<string, number> = {}
  for (const result of NOISE_CHECK_RESULTS) results[result] = await c.metric('svc_noise_checks_total', { gate: '', result })
  const skipped: Record<string, number> = {}
  for (const reason of NOISE_SKIP_REASONS) skipped[reason] = await c.metric('svc_noise_checks_skipped_total', { gate: '', reason })
  return { results, skipped }
}

const ON = { noiseSampleRate: 1 } as const

export const NOISE_CASES: readonly ShadowCase[] = [
  {
    name: 'a live that returns a random id is noisy: the diff record carries the noise, formatted like the diff',
    config: ON,
    async run(c) {
      c.live.route('/api/order', () => json({ request_id: crypto.randomUUID(), total: 10 }))
      c.shadow.route('/api/order', () => json({ request_id: 'shadow', total: 12 }))
      const response = await c.request('/api/order')
      const first = (await response.json()) as { request_id: string }
      const record = await c.waitForRecord('response diff detected')
      await c.settled()
      expect(String(record.noise)).toMatch(/^replace \/body\/request_id="[0-9a-f-]{36}"$/)
      // The repeat's id, not the one the client got.
      expect(String(record.noise)).not.toContain(first.request_id)
      expect(String(record.diff)).toContain('replace /body/total=12')
      expect((await noiseCounts(c)).results).toEqual({ quiet: 0, noisy: 1, error: 0 })
      expect(c.live.requests.filter(isRepeat)).toHaveLength(1)
    },
  },
  {
    name: 'a deterministic live is quiet: the diff record has an empty noise, and a match logs nothing',
    config: ON,
    async run(c) {
      c.live.route('/api/whoami', () => json({ name: 'live' }))
      c.shadow.route('/api/whoami', () => json({ name: 'candidate' }))
      await drained(await c.request('/api/whoami'))
      await drained(await c.request('/api/json'))
      const record = await c.waitForRecord('response diff detected')
      await c.settled()
      expect(record['request.path']).toBe('/api/whoami')
      expect(record.noise).toBe('')
      expect(c.target.records().filter((r) => r.msg === 'response diff detected')).toHaveLength(1)
      expect((await noiseCounts(c)).results).toEqual({ quiet: 2, noisy: 0, error: 0 })
      expect(await c.metric('svc_responses_compared_total', { gate: '', result: 'match' })).toBe(1)
    },
  },
  {
    name: 'the repeat asks live the same thing (method, target, headers) with X-Svc-Mode: repeat; the shadow still gets X-Svc-Mode: shadow',
    config: ON,
    async run(c) {
      const headers = { 'x-request-id': 'client-id-1', accept: 'application/json', 'x-custom': 'kept' }
      for (const method of ['GET', 'HEAD', 'OPTIONS']) await drained(await c.request('/api/items?page=2&q=x%20y', { method, headers }))
      await c.settled()
      const firsts = c.live.requests.filter((r) => !isRepeat(r))
      const repeats = c.live.requests.filter(isRepeat)
      expect(firsts.map((r) => r.method)).toEqual(['GET', 'HEAD', 'OPTIONS'])
      expect(repeats.map((r) => r.method)).toEqual(['GET', 'HEAD', 'OPTIONS'])
      for (const [i, repeat] of repeats.entries()) {
        const first = firsts[i]!
        expect(repeat.target).toBe('/api/items?page=2&q=x%20y')
        expect(repeat.body.byteLength).toBe(0)
        const without = (request: RecordedRequest) =>
          Object.fromEntries([...request.headers].filter(([name]) => name !== 'x-svc-mode' && name !== 'connection'))
        expect(without(repeat)).toEqual(without(first))
        expect(first.headers.has('x-svc-mode')).toBe(false)
      }
      expect(c.shadow.requests.map((r) => r.headers.get('x-svc-mode'))).toEqual(['shadow', 'shadow', 'shadow'])
      expect((await noiseCounts(c)).results.quiet).toBe(3)
    },
  },
  {
    name: 'a POST is never repeated (method), nor a request that had a body (body)',
    config: { ...ON, shadowRules: 'allow POST:/api/search' },
    async run(c) {
      await drained(await c.request('/api/search', { method: 'POST', body: '{"q":"shoes"}', headers: { 'content-type': 'application/json' } }))
      await drained(await c.request('/api/items', { method: 'OPTIONS', body: 'x' }))
      const counts = await c.settled()
      expect(counts.compared).toBe(2)
      expect(c.live.requests.map((r) => r.method)).toEqual(['POST', 'OPTIONS'])
      expect(c.live.requests.filter(isRepeat)).toHaveLength(0)
      const noise = await noiseCounts(c)
      expect(noise.skipped).toMatchObject({ method: 1, body: 1, rate_limited: 0 })
      expect(noise.results).toEqual({ quiet: 0, noisy: 0, error: 0 })
    },
  },
  {
    name: 'the repeat leaves only once live’s first response has passed through whole: the client is never kept waiting',
    config: ON,
    async run(c) {
      const encoder = new TextEncoder()
      let release!: () => void
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      let firstBodyEndedAt = Number.POSITIVE_INFINITY
      /** Two parts, without a length; the second of the first answer held until `release()`. */
      const stream = (repeat: boolean) => {
        let part = 0
        return new Response(
          new ReadableStream({
            async pull(controller) {
              if (part++ === 0) return controller.enqueue(encoder.encode('part 1\n'))
              if (!repeat) await held
              controller.enqueue(encoder.encode('part 2\n'))
              if (!repeat) firstBodyEndedAt = performance.now()
              controller.close()
            },
          }),
        )
      }
      c.live.route('/api/stream', (request) => stream(request.headers.get('x-svc-mode') === 'repeat'))
      c.shadow.route('/api/stream', () => stream(true))
      const response = await c.request('/api/stream')
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = decoder.decode((await reader.read()).value, { stream: true })
      // The client has live's first part and the shadow has answered: a
      // repeat sent with live's head would be on its way by now.
      expect(text).toBe('part 1\n')
      await c.shadow.waitForRequests(1)
      await Bun.sleep(100)
      expect(c.live.requests).toHaveLength(1)
      release()
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true })
      expect(text).toBe('part 1\npart 2\n')
      await c.settled()
      const repeats = c.live.requests.filter(isRepeat)
      expect(repeats).toHaveLength(1)
      // Ordered by live's own records: the repeat arrived after live had sent the first body's last byte.
      expect(repeats[0]!.receivedAt).toBeGreaterThan(firstBodyEndedAt)
      expect((await noiseCounts(c)).results.quiet).toBe(1)
    },
  },
  {
    name: 'the rate cap holds: a burst gets at most noise_max_per_second repeats a second, the rest counted rate_limited',
    config: { ...ON, noiseMaxPerSecond: 3, maxConcurrentCallbacks: 0 },
    async run(c) {
      const burst = 12
      const started = performance.now()
      await Promise.all(Array.from({ length: burst }, () => c.request('/api/json').then(drained)))
      const counts = await c.settled()
      const elapsedMs = performance.now() - started
      expect(counts.compared).toBe(burst)
      const repeats = c.live.requests.filter(isRepeat).length
      const noise = await noiseCounts(c)
      // Every sampled request is repeated or skipped, never both.
      expect(repeats + noise.skipped.rate_limited!).toBe(burst)
      expect(noise.results.quiet).toBe(repeats)
      expect(repeats).toBeGreaterThanOrEqual(1)
      // At most 3 in any second: over the whole run, 3 per second begun.
      expect(repeats).toBeLessThanOrEqual(3 * Math.ceil(elapsedMs / 1000))
      expect(noise.skipped.rate_limited).toBeGreaterThan(0)
    },
  },
  {
    name: 'sample rate 0 (the default) repeats nothing and counts nothing',
    config: { noiseSampleRate: 0 },
    async run(c) {
      for (let i = 0; i < 5; i++) await drained(await c.request('/api/json'))
      const counts = await c.settled()
      expect(counts.compared).toBe(5)
      expect(c.live.requests).toHaveLength(5)
      expect(c.live.requests.filter(isRepeat)).toHaveLength(0)
      const noise = await noiseCounts(c)
      expect(Object.values(noise.results).every((n) => n === 0)).toBe(true)
      expect(Object.values(noise.skipped).every((n) => n === 0)).toBe(true)
    },
  },
]
