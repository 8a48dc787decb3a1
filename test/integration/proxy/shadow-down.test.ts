/**
 * A shadow that is down (docs/proxy.md "A shadow that is down"): after a
 * refused connection the shadow is not tried for the refusal window (then
 * by one request a window), and
 * with a sink that takes the error without a capture (the diff-log sink's
 * `shadowNotAttempted`) live is forwarded like an unshadowed request, the
 * sink told as soon as live's headers are in. A real port that refuses
 * connections stands for the shadow.
 */
import { describe, expect, test } from 'bun:test'
import { compareResponses, DEFAULT_DIFF_CONFIG } from '../../../src/diff/index.ts'
import { createLogger } from '../../../src/log/index.ts'
import { FieldList } from '../../../src/net/field-list.ts'
import type { ClientSide } from '../../../src/proxy/pipeline/relay-live.ts'
import {
  createShadowHandler,
  type Capture,
  type CaptureSink,
  type ShadowHandlerDeps,
  type ShadowNotAttempted,
  type ShadowSettings,
} from '../../../src/proxy/index.ts'
import { ephemeralPortRange, GZIP_BYTES, JSON_TEXT, refusedUrl, type TestUpstream, useUpstreamPair } from '../../support/upstreams.ts'
import { testShadowSettings } from '../../support/shadow-settings.ts'
import { sumSamples } from '../../support/prometheus-text.ts'
import { standaloneEnv, startTestProxy } from './proxy-harness.ts'

const NOT_ATTEMPTED = 'shadow: connection refused (not attempted: the shadow refused a connection and has not answered since; one is tried at most every 60000 ms)'

let live: TestUpstream
useUpstreamPair((pair) => ({ live } = pair))

/** Nothing listens there: every connection is refused. */
const downUrl = () => refusedUrl()

test('the down shadow stays down: its port is outside the range a listener on port 0 is given, and refuses connections', async () => {
  const [low] = ephemeralPortRange()
  for (let i = 0; i < 20; i++) {
    const port = Number(new URL(downUrl()).port)
    // A port from that range could be given to the proxy itself, whose shadow would then be its own address.
    expect(port).toBeLessThan(low)
    expect(port).toBeGreaterThanOrEqual(1024)
  }
  await expect(fetch(downUrl())).rejects.toThrow()
})

function settings(overrides: Partial<ShadowSettings>): ShadowSettings {
  return testShadowSettings(live.url, downUrl(), overrides)
}

/**
 * A sink that keeps every capture and answers `error`, as the diff-log sink
 * would; with `notAttempted`, it also takes errors without a capture.
 */
function recordingSink(notAttempted: boolean): CaptureSink & { captures: Capture[]; notAttempted: ShadowNotAttempted[] } {
  const captures: Capture[] = []
  const notAttemptedRequests: ShadowNotAttempted[] = []
  const sink: CaptureSink & { captures: Capture[]; notAttempted: ShadowNotAttempted[] } = {
    captures,
    notAttempted: notAttemptedRequests,
    submit(capture) {
      captures.push(capture)
      return { kind: 'compared', result: 'error' }
    },
  }
  if (notAttempted) {
    sink.shadowNotAttempted = (request) => {
      // Its id is made when first read: the same on every read after.
      const { id } = request
      if (request.id !== id) throw new Error('the id changed between two reads')
      // A plain copy of what a sink reads.
      const { clientRequestId, method, path, liveStatus, liveError, shadowError, cause } = request
      notAttemptedRequests.push({ id, clientRequestId, method, path, liveStatus, shadowError, cause, ...(liveError === undefined ? {} : { liveError }) })
      return { kind: 'compared', result: 'error' }
    }
  }
  return sink
}

function handlerWith(sink: CaptureSink, overrides: Partial<ShadowSettings> = {}, deps: ShadowHandlerDeps = {}) {
  return createShadowHandler(settings(overrides), {
    logger: createLogger({ level: 'error', format: 'json', write: () => {} }),
    sink,
    // Long enough that no test outlives it.
    shadowRefusalWindowMs: 60_000,
    ...deps,
  })
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const bodyOf = async (response: Promise<Response>) => (await response).text()

describe('a shadow that is down, in the core', () => {
  test('a sink that takes errors without a capture is told once live’s headers are in, with the cause compareResponses would give', async () => {
    const sink = recordingSink(true)
    const handler = handlerWith(sink)
    try {
      // The first request tries the shadow and is refused: compared on the full path.
      expect(await bodyOf(handler.fetch(new Request('http://host/json')))).toBe(JSON_TEXT)
      await handler.drain()
      expect(sink.captures).toHaveLength(1)
      expect(text(sink.captures[0]!.live.body)).toBe(JSON_TEXT)
      expect(text(sink.captures[0]!.shadow.body)).toBe('shadow: connection refused')

      // Inside the window: told before the client's response is even read, no background task, no capture.
      const id = '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40'
      const response = await handler.fetch(new Request('http://host/json?page=2', { headers: { 'x-request-id': id } }))
      expect(handler.inFlight).toBe(0)
      expect(sink.captures).toHaveLength(1)
      expect(sink.notAttempted).toEqual([
        {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          clientRequestId: id,
          method: 'GET',
          path: '/json',
          liveStatus: 200,
          shadowError: NOT_ATTEMPTED,
          cause: `shadow failed: ${NOT_ATTEMPTED}`,
        },
      ])
      expect(sink.notAttempted[0]!.id).not.toBe(id)
      expect(await response.text()).toBe(JSON_TEXT)
      // The same cause as a whole capture with that shadow side gets.
      const comparison = compareResponses(
        sink.captures[0]!.live,
        { status: 0, headers: {}, body: new TextEncoder().encode(NOT_ATTEMPTED) },
        { diff: DEFAULT_DIFF_CONFIG, redactedFields: [], maxBodyBytes: 0 },
      )
      expect(comparison).toEqual({ kind: 'error', cause: sink.notAttempted[0]!.cause })
      expect(sumSamples(handler.metrics.registry.render(), 'svc_comparisons_skipped_total')).toBe(0)
    } finally {
      await handler.close()
    }
  })

  test('once the window has passed, one request of a burst tries the shadow again, on both servers; its refusal opens the next window', async () => {
    const windowMs = 100
    // Moved by hand: a loaded machine's pauses do not pass for the window.
    let now = 0
    const refused = (sink: ReturnType<typeof recordingSink>) => sink.captures.filter((c) => text(c.shadow.body) === 'shadow: connection refused').length
    const relayed = (handler: ReturnType<typeof handlerWith>) =>
      new Promise<void>((resolve) => {
        const side: ClientSide = { head: () => {}, body: () => true, end: () => {}, problem: () => {}, broken: () => {}, watcher: undefined, finished: resolve }
        handler.relay!({ method: 'GET', target: '/json', fields: new FieldList(['host'], ['proxy.test']), body: null, clientAddress: '127.0.0.1' }, side)
      })
    const burst = (handler: ReturnType<typeof handlerWith>, server: 'fetch' | 'raw') =>
      Promise.all(Array.from({ length: 20 }, () => (server === 'fetch' ? bodyOf(handler.fetch(new Request('http://host/json'))) : relayed(handler))))
    for (const server of ['fetch', 'raw'] as const) {
      const sink = recordingSink(true)
      const handler = handlerWith(sink, {}, { shadowRefusalWindowMs: windowMs, shadowRefusalClock: () => now })
      try {
        await burst(handler, server)
        await handler.drain()
        // Before anything is known of the shadow, every request tries it.
        expect(refused(sink)).toBe(20)
        for (let window = 1; window <= 2; window++) {
          now += windowMs
          // Twenty at once: all in before the probe's refusal is.
          await burst(handler, server)
          await handler.drain()
          expect(refused(sink)).toBe(20 + window)
          expect(sink.notAttempted).toHaveLength(19 * window)
        }
        // The probe's refusal opened a new window: nothing tried inside it.
        await burst(handler, server)
        await handler.drain()
        expect(refused(sink)).toBe(22)
        expect(sink.notAttempted).toHaveLength(58)
        // Every request told to the sink once, on one path or the other.
        expect(sink.captures.length + sink.notAttempted.length).toBe(80)
      } finally {
        await handler.close()
      }
    }
  })

  test('a probe that is reset (the shadow back, but not well) closes the window: the next request tries the shadow', async () => {
    let now = 0
    const shadowUrl = downUrl()
    const sink = recordingSink(true)
    const handler = createShadowHandler(testShadowSettings(live.url, shadowUrl, {}), {
      logger: createLogger({ level: 'error', format: 'json', write: () => {} }),
      sink,
      shadowRefusalWindowMs: 100,
      shadowRefusalClock: () => now,
    })
    // Now something listens there, and closes every connection at once.
    let listener: { stop(closeActive?: boolean): void } | undefined
    try {
      expect(await bodyOf(handler.fetch(new Request('http://host/json')))).toBe(JSON_TEXT)
      await handler.drain()
      expect(text(sink.captures[0]!.shadow.body)).toBe('shadow: connection refused')
      listener = Bun.listen({ hostname: '127.0.0.1', port: Number(new URL(shadowUrl).port), socket: { open: (socket) => void socket.end(), data: () => {} } })
      now += 100
      for (let i = 0; i < 2; i++) {
        expect(await bodyOf(handler.fetch(new Request('http://host/json')))).toBe(JSON_TEXT)
        await handler.drain()
      }
      // Both tried (the probe, then the next one): neither is told as not attempted.
      expect(sink.notAttempted).toHaveLength(0)
      expect(sink.captures).toHaveLength(3)
      for (const capture of sink.captures.slice(1)) {
        expect(capture.shadow.status).toBe(0)
        expect(text(capture.shadow.body)).not.toContain('refused')
      }
    } finally {
      listener?.stop(true)
      await handler.close()
    }
  })

  test('a sink that needs live’s body (the API reporter) still gets it in full', async () => {
    const sink = recordingSink(false)
    const handler = handlerWith(sink)
    try {
      for (let i = 0; i < 3; i++) {
        expect(await bodyOf(handler.fetch(new Request('http://host/json')))).toBe(JSON_TEXT)
        await handler.drain() // the first refusal is in before the next request
      }
      expect(sink.captures).toHaveLength(3)
      for (const capture of sink.captures) expect(text(capture.live.body)).toBe(JSON_TEXT)
      expect(sink.captures.slice(1).map((c) => text(c.shadow.body))).toEqual([NOT_ATTEMPTED, NOT_ATTEMPTED])
    } finally {
      await handler.close()
    }
  })

  test('a live failure inside the window is still answered 502 and compared with both sides failed', async () => {
    const sink = recordingSink(true)
    const handler = handlerWith(sink, { liveUrl: downUrl() })
    try {
      // The first request's shadow refusal opens the window; whether it or
      // live's own refusal comes first is up to the sockets, so wait for it.
      expect((await handler.fetch(new Request('http://host/json'))).status).toBe(502)
      await handler.drain()
      expect((await handler.fetch(new Request('http://host/json'))).status).toBe(502)
      await handler.drain()
      expect(sink.captures).toHaveLength(1)
      expect(sink.notAttempted).toHaveLength(1)
      expect(sink.notAttempted[0]).toMatchObject({
        liveStatus: 0,
        cause: `live failed: live: connection refused; shadow failed: ${NOT_ATTEMPTED}`,
      })
    } finally {
      await handler.close()
    }
  })

  test('a sink that throws inside the window: report_failed, and the client still gets live', async () => {
    const sink: CaptureSink = {
      submit: () => ({ kind: 'compared', result: 'error' }),
      shadowNotAttempted() {
        throw new Error('sink bug')
      },
    }
    const handler = handlerWith(sink)
    try {
      for (let i = 0; i < 2; i++) {
        expect(await bodyOf(handler.fetch(new Request('http://host/json')))).toBe(JSON_TEXT)
        await handler.drain() // the first refusal is in before the next request
      }
      const rendered = handler.metrics.registry.render()
      expect(sumSamples(rendered, 'svc_comparisons_skipped_total', { reason: 'report_failed' })).toBe(1)
    } finally {
      await handler.close()
    }
  })

  test('on the raw server, a client side that throws at the response’s end inside the window: not compared, and its callbacks slot given back', async () => {
    const sink = recordingSink(true)
    // One slot: a request that kept it would leave the next one `callbacks_full`.
    const handler = handlerWith(sink, { maxConcurrentCallbacks: 1 })
    try {
      expect(await bodyOf(handler.fetch(new Request('http://host/json')))).toBe(JSON_TEXT)
      await handler.drain()
      const answered: string[] = []
      for (let i = 0; i < 2; i++) {
        await new Promise<void>((resolve) => {
          const side: ClientSide = {
            head: () => {},
            body: () => true,
            end: () => {
              throw new Error('client socket bug')
            },
            problem: (problem) => answered.push(problem.type),
            broken: () => {},
            watcher: undefined,
            finished: resolve,
          }
          const fields = new FieldList(['host'], ['proxy.test'])
          handler.relay!({ method: 'GET', target: '/json', fields, body: null, clientAddress: '127.0.0.1' }, side)
        })
      }
      expect(answered).toEqual(['/errors/internal', '/errors/internal'])
      const rendered = handler.metrics.registry.render()
      expect(sumSamples(rendered, 'svc_comparisons_skipped_total', { reason: 'report_failed' })).toBe(2)
      expect(sumSamples(rendered, 'svc_comparisons_skipped_total', { reason: 'callbacks_full' })).toBe(0)
      expect(sink.notAttempted).toHaveLength(0)
    } finally {
      await handler.close()
    }
  })
})

describe('a shadow that is down, through the proxy (standalone)', () => {
  test('live’s responses reach the client byte for byte, each request is compared once as an error, the shadow is tried once', async () => {
    const proxy = await startTestProxy(standaloneEnv(live.url, downUrl()))
    try {
      const first = await fetch(`${proxy.url}/json`)
      expect(await first.text()).toBe(JSON_TEXT)

      const json = await fetch(`${proxy.url}/json`)
      expect(json.headers.get('content-type')).toBe('application/json')
      expect(await json.text()).toBe(JSON_TEXT)
      const gzip = await fetch(`${proxy.url}/gzip`, { decompress: false } as RequestInit)
      expect(gzip.headers.get('content-encoding')).toBe('gzip')
      expect(new Uint8Array(await gzip.arrayBuffer())).toEqual(GZIP_BYTES)
      const large = await fetch(`${proxy.url}/large?bytes=300000`)
      expect((await large.arrayBuffer()).byteLength).toBe(300_000)
      const chunked = await fetch(`${proxy.url}/chunked?chunks=3&delay=20`)
      expect(await chunked.text()).toBe('chunk 0\nchunk 1\nchunk 2\n')
      expect((await fetch(`${proxy.url}/status/500`)).status).toBe(500)

      const counts = await proxy.settled()
      expect(counts.received).toBe(6)
      expect(counts.compared).toBe(6)
      expect(counts.skippedTotal).toBe(0)
      expect(await proxy.metric('svc_responses_compared_total', { result: 'error' })).toBe(6)
      expect(await proxy.metric('http_client_request_duration_seconds_count', { svc_target: 'shadow' })).toBe(1)
      expect(await proxy.metric('http_client_request_duration_seconds_count', { svc_target: 'live' })).toBe(6)
    } finally {
      await proxy.stop()
    }
  })

  test('inside the window live’s body is not looked at: one above SVC_APP_MAX_BODY_SIZE is an error too, not body_too_large', async () => {
    const proxy = await startTestProxy(standaloneEnv(live.url, downUrl(), { SVC_APP_MAX_BODY_SIZE: '1000' }))
    try {
      await (await fetch(`${proxy.url}/status/200`)).text()
      expect((await (await fetch(`${proxy.url}/large?bytes=5000`)).arrayBuffer()).byteLength).toBe(5000)
      const counts = await proxy.settled()
      expect(counts.compared).toBe(2)
      expect(counts.skipped.body_too_large).toBe(0)
      expect(await proxy.metric('svc_responses_compared_total', { result: 'error' })).toBe(2)
    } finally {
      await proxy.stop()
    }
  })

  test('inside the window a body that does not fit the bytes-in-flight budget is memory_budget, as outside it; one that fits is an error', async () => {
    const proxy = await startTestProxy(
      standaloneEnv(live.url, downUrl(), { SVC_APP_MAX_BYTES_IN_FLIGHT: '4000', SVC_APP_SHADOW_RULES: 'allow POST:/echo' }),
    )
    try {
      // The first request is refused by the shadow: the window opens.
      await (await fetch(`${proxy.url}/json`)).text()
      const large = await fetch(`${proxy.url}/echo`, { method: 'POST', body: 'x'.repeat(5000) })
      expect(((await large.json()) as { body_length: number }).body_length).toBe(5000)
      const small = await fetch(`${proxy.url}/echo`, { method: 'POST', body: 'y'.repeat(100) })
      expect(((await small.json()) as { body_length: number }).body_length).toBe(100)
      const counts = await proxy.settled()
      expect(counts.received).toBe(3)
      expect(counts.skipped.memory_budget).toBe(1)
      expect(counts.skippedTotal).toBe(1)
      expect(await proxy.metric('svc_responses_compared_total', { result: 'error' })).toBe(2)
    } finally {
      await proxy.stop()
    }
  })

  test('compared + skipped = received over a concurrent load while the shadow is down', async () => {
    const proxy = await startTestProxy(
      standaloneEnv(live.url, downUrl(), {
        SVC_APP_SAMPLING_RATE: '0.5',
        SVC_APP_SHADOW_RULES: 'deny GET:/status/*',
      }),
    )
    try {
      const paths = ['/json', '/gzip', '/status/404', '/large?bytes=70000', '/whoami']
      await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          fetch(`${proxy.url}${paths[i % paths.length]}`).then((r) => r.arrayBuffer()),
        ),
      )
      const counts = await proxy.settled()
      expect(counts.received).toBe(200)
      expect(counts.compared + counts.skippedTotal).toBe(200)
      expect(counts.skipped.denied_by_rule).toBe(40)
      expect(counts.compared).toBe(await proxy.metric('svc_responses_compared_total', { result: 'error' }))
    } finally {
      await proxy.stop()
    }
  })
})
