/**
 * The bytes-in-flight budget (SVC_APP_MAX_BYTES_IN_FLIGHT, docs/proxy.md
 * "Memory"): comparisons whose bytes do not fit are skipped as
 * `memory_budget`, live's answers stay exact, every request is accounted
 * for, and every byte reserved comes back.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { endlessChunks, startHostileUpstream } from '../../support/hostile-upstream.ts'
import { startUpstreamPair, waitFor, type TestUpstream } from '../../support/upstreams.ts'
import { apiModeEnv, standaloneEnv, startTestProxy, type ProxyUnderTest } from './proxy-harness.ts'
import { startScriptedApi, type ScriptedApi } from './scripted-api.ts'

const MiB = 1024 * 1024
/** A body of `size` bytes that differ along it, so that a cut or a mix-up shows. */
const bodyOf = (size: number, seed: number) => Uint8Array.from({ length: size }, (_, i) => (i * 31 + seed) % 251)

let live: TestUpstream
let shadow: TestUpstream
let stopPair: () => Promise<void>
let api: ScriptedApi
/** The shadow answers once this resolves. */
let shadowGate = Promise.withResolvers<void>()

beforeAll(async () => {
  const pair = await startUpstreamPair()
  live = pair.live
  shadow = pair.shadow
  stopPair = pair.stop
  api = startScriptedApi({ liveUrl: live.url, shadowUrl: shadow.url })
})

afterAll(async () => {
  shadowGate.resolve()
  api.stop()
  await stopPair()
})

/** Live answers `/big/<n>` with `liveSize` bytes; the shadow with `shadowBytes`, once `shadowGate` opens. */
function routeBig(shadowBytes: (n: number) => Uint8Array<ArrayBuffer>, liveSize = MiB) {
  shadowGate = Promise.withResolvers<void>()
  const gate = shadowGate.promise
  for (let n = 0; n < 8; n++) {
    live.route(`/big/${n}`, () => new Response(bodyOf(liveSize, n)))
    shadow.route(`/big/${n}`, async () => {
      await gate
      return new Response(shadowBytes(n))
    })
  }
}

async function withProxy(env: Record<string, string>, body: (proxy: ProxyUnderTest) => Promise<void>): Promise<void> {
  const proxy = await startTestProxy(env)
  try {
    await body(proxy)
  } finally {
    shadowGate.resolve()
    await proxy.stop()
  }
}

/** One request; live's body must come back exactly. */
async function fetchExact(proxy: ProxyUnderTest, n: number, size = MiB): Promise<void> {
  const response = await fetch(`${proxy.url}/big/${n}`)
  expect(response.status).toBe(200)
  expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(bodyOf(size, n)))).toBe(true)
}

describe('standalone', () => {
  test('while two comparisons hold 2 MiB of a 2.5 MiB budget, the next ones are skipped as memory_budget; live is untouched', () =>
    withProxy(standaloneEnv(live.url, shadow.url, { SVC_APP_MAX_BYTES_IN_FLIGHT: String(2.5 * MiB) }), async (proxy) => {
      // A small shadow body: the two comparisons that hold live's copies then fit (as diffs).
      routeBig(() => new TextEncoder().encode('{}'))
      // One at a time, each comparison waiting for the shadow: live's copies of 1 and 2 are held.
      for (let n = 0; n < 4; n++) await fetchExact(proxy, n)
      await waitFor(async () => ((await proxy.accounting()).skipped.memory_budget === 2 ? true : undefined))
      expect(proxy.proxy.handler.bytesInFlight).toBe(2 * MiB)
      shadowGate.resolve()
      const counts = await proxy.settled()
      expect(await proxy.metric('svc_responses_compared_total', { result: 'diff' })).toBe(2)
      expect(counts.skipped.memory_budget).toBe(2)
      expect(counts.received).toBe(4)
      expect(counts.compared + counts.skippedTotal).toBe(4)
      expect(proxy.proxy.handler.bytesInFlight).toBe(0)
      expect(proxy.records().some((r) => r.msg === 'comparison dropped: the bytes-in-flight budget is full')).toBe(true)
    }))

  test('concurrent big bodies: some compared, the rest skipped as memory_budget, all accounted for', () =>
    withProxy(standaloneEnv(live.url, shadow.url, { SVC_APP_MAX_BYTES_IN_FLIGHT: String(3.5 * MiB) }), async (proxy) => {
      routeBig(() => new TextEncoder().encode('{}'))
      await Promise.all(Array.from({ length: 8 }, (_, n) => fetchExact(proxy, n)))
      // Live's copies are held until the shadow answers: at most three fit.
      expect(proxy.proxy.handler.bytesInFlight).toBeLessThanOrEqual(3.5 * MiB)
      shadowGate.resolve()
      const counts = await proxy.settled()
      expect(counts.received).toBe(8)
      expect(counts.compared).toBeGreaterThanOrEqual(1)
      expect(counts.compared).toBeLessThanOrEqual(3)
      expect(counts.skipped.memory_budget).toBe(8 - counts.compared)
      expect(proxy.proxy.handler.bytesInFlight).toBe(0)
    }))

  test('with SVC_APP_MAX_BODY_SIZE=0 a shadow body is still bounded: by the budget', async () => {
    live.route('/endless', () => new Response(null, { status: 204 }))
    const hostile = startHostileUpstream({
      '/endless': (c) => {
        c.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n')
        return endlessChunks(c, 'x'.repeat(16 * 1024))
      },
    })
    try {
      const env = standaloneEnv(live.url, hostile.url, { SVC_APP_MAX_BODY_SIZE: '0', SVC_APP_MAX_BYTES_IN_FLIGHT: String(MiB) })
      await withProxy(env, async (proxy) => {
        expect((await fetch(`${proxy.url}/endless`)).status).toBe(204)
        const record = await proxy.waitForRecord('comparison failed')
        expect(String(record.cause)).toEndWith(`shadow: response too large (body over ${MiB} bytes)`)
        const counts = await proxy.settled()
        expect(counts.compared).toBe(1)
        expect(proxy.proxy.handler.bytesInFlight).toBe(0)
        await waitFor(() => (hostile.openConnections === 0 ? true : undefined))
      })
    } finally {
      hostile.stop()
    }
  })

  test('a request body that does not fit is sent to live whole, the comparison skipped', () =>
    withProxy(
      standaloneEnv(live.url, shadow.url, { SVC_APP_MAX_BYTES_IN_FLIGHT: String(MiB), SVC_APP_SHADOW_RULES: 'allow POST:/upload' }),
      async (proxy) => {
        const upload = bodyOf(2 * MiB, 7)
        live.route('/upload', (_, body) => new Response(String(Buffer.from(body).equals(Buffer.from(upload)))))
        // Announced, then chunked (no Content-Length: the budget is asked chunk by chunk).
        expect(await (await fetch(`${proxy.url}/upload`, { method: 'POST', body: upload })).text()).toBe('true')
        const stream = new Blob([upload]).stream()
        const chunked = await fetch(`${proxy.url}/upload`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit)
        expect(await chunked.text()).toBe('true')
        const counts = await proxy.settled()
        expect(counts.skipped.memory_budget).toBe(2)
        expect(counts.received).toBe(2)
        expect(shadow.requests.filter((r) => r.target === '/upload')).toHaveLength(0)
        expect(proxy.proxy.handler.bytesInFlight).toBe(0)
      },
    ))
})

describe('API mode', () => {
  test('a pending report holds its encoded copy too: the next capture does not fit and is skipped', async () => {
    api.reports.length = 0
    const apiGate = Promise.withResolvers<void>()
    api.answer = async () => {
      await apiGate.promise
      return new Response('{"data":{}}', { status: 201, headers: { 'content-type': 'application/json' } })
    }
    routeBig((n) => bodyOf(MiB / 2, n), MiB / 2)
    shadowGate.resolve()
    try {
      const env = apiModeEnv(api, {
        // One capture: 1 MiB of bodies and 8/3 MiB of report; a second one's live copy does not fit.
        SVC_APP_MAX_BYTES_IN_FLIGHT: String(4 * MiB),
      })
      await withProxy(env, async (proxy) => {
        await fetchExact(proxy, 0, MiB / 2)
        await waitFor(() => (api.reports.length === 1 ? true : undefined))
        await fetchExact(proxy, 1, MiB / 2)
        await waitFor(async () => ((await proxy.accounting()).skipped.memory_budget === 1 ? true : undefined))
        apiGate.resolve()
        const counts = await proxy.settled()
        expect(counts.reported).toBe(1)
        expect(counts.skipped.memory_budget).toBe(1)
        expect(counts.received).toBe(2)
        expect(api.reports).toHaveLength(1)
        expect(proxy.proxy.handler.bytesInFlight).toBe(0)
      })
    } finally {
      apiGate.resolve()
      api.answer = () => new Response('{"data":{}}', { status: 201, headers: { 'content-type': 'application/json' } })
    }
  })
})
