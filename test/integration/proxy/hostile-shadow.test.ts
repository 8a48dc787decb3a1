/**
 * A hostile shadow, as a raw TCP server, behind a standalone proxy: each
 * answer it gives is a counted shadow error (or, for the dribbled head, a
 * comparison), and live's response never waits for it: the shadow writes
 * nothing until the client has live's whole response.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { dribble, endlessChunks, startHostileUpstream, type HostileUpstream } from '../../support/hostile-upstream.ts'
import { startUpstream, type TestUpstream } from '../../support/upstreams.ts'
import { standaloneEnv, startTestProxy, type ProxyUnderTest } from './proxy-harness.ts'

const LIVE_BODY = 'live body'
/** About 60 KB of fields: under the 64 KiB bound of a head. */
const FIELDS = Array.from({ length: 600 }, (_, i) => `X-F${i}: ${'v'.repeat(92)}\r\n`).join('')

let live: TestUpstream
let hostile: HostileUpstream
let release: () => void = () => {}
let held: Promise<void> = Promise.resolve()

beforeAll(async () => {
  live = await startUpstream('live')
  live.route('/', () => new Response(LIVE_BODY))
  for (const path of ['/dribbled-head', '/big-head', '/endless-chunked', '/cl-te', '/never-ends', '/status-99', '/endless-interim']) {
    live.route(path, () => new Response(LIVE_BODY))
  }
  hostile = startHostileUpstream(
    {
      '/dribbled-head': (c) => dribble(c, `HTTP/1.1 200 OK\r\n${FIELDS}Content-Length: ${LIVE_BODY.length}\r\n\r\n${LIVE_BODY}`),
      '/big-head': (c) => c.write(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(70_000)}\r\nContent-Length: 0\r\n\r\n`),
      '/endless-interim': (c) => endlessInterim(c),
      '/endless-chunked': (c) => {
        c.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n')
        return endlessChunks(c, 'x'.repeat(4096))
      },
      '/cl-te': (c) =>
        c.write(`HTTP/1.1 200 OK\r\nContent-Length: 9\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n${LIVE_BODY}\r\n0\r\n\r\n`),
      '/never-ends': (c) => c.write('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial'),
      '/status-99': (c) => c.write(`HTTP/1.1 099 Odd\r\nContent-Length: 9\r\n\r\n${LIVE_BODY}`),
    },
    () => held,
  )
})

afterEach(() => release())

afterAll(async () => {
  hostile.stop()
  await live.stop()
})

/** 100 Continue, again and again, while the connection is open. */
async function endlessInterim(c: Parameters<Parameters<typeof startHostileUpstream>[0][string]>[0]): Promise<void> {
  const deadline = performance.now() + 10_000
  while (c.open() && performance.now() < deadline) {
    c.write('HTTP/1.1 100 Continue\r\n\r\n'.repeat(50))
    await Bun.sleep(1)
  }
}

async function withProxy(env: Record<string, string>, body: (proxy: ProxyUnderTest) => Promise<void>): Promise<void> {
  const proxy = await startTestProxy(standaloneEnv(live.url, hostile.url, env))
  try {
    await body(proxy)
  } finally {
    await proxy.stop()
  }
}

/** Sends one request; checks that live's exact response came while the shadow had written nothing yet; then lets the shadow answer. */
async function liveFirst(proxy: ProxyUnderTest, path: string): Promise<void> {
  held = new Promise((resolve) => (release = resolve))
  const before = hostile.written
  const response = await fetch(`${proxy.url}${path}`)
  expect(response.status).toBe(200)
  expect(await response.text()).toBe(LIVE_BODY)
  expect(hostile.written).toBe(before)
  release()
}

describe('a hostile shadow is a counted shadow error, and live never waits for it', () => {
  test.each([
    ['/big-head', 'shadow: response too large (head over 65536 bytes)'],
    ['/endless-interim', 'shadow: response too large (head over 65536 bytes)'],
    ['/endless-chunked', 'shadow: response too large (body over 100000 bytes)'],
    ['/cl-te', 'shadow: bad response: Content-Length with Transfer-Encoding'],
    ['/status-99', 'shadow: bad response: status 99 outside 100..599'],
    ['/never-ends', 'shadow: timed out after 500ms'],
  ])('%s: %s', (path, cause) =>
    withProxy({ SVC_APP_MAX_BODY_SIZE: '100000', SVC_APP_SHADOW_TIMEOUT: '500ms' }, async (proxy) => {
      await liveFirst(proxy, path)
      const record = await proxy.waitForRecord('comparison failed')
      expect(String(record.cause)).toEndWith(cause)
      expect(record.shadow_status).toBe(0)
      const counts = await proxy.settled()
      expect(await proxy.metric('svc_responses_compared_total', { result: 'error' })).toBe(1)
      expect(counts.received).toBe(1)
      expect(counts.skippedTotal).toBe(0)
      // The connection was closed, not read on.
      await waitUntil(() => hostile.openConnections === 0)
    }),
  )

  test('a head dribbled a byte at a time is read (linearly: see the reader’s unit test) and compared', () =>
    withProxy({ SVC_APP_SHADOW_TIMEOUT: '20s' }, async (proxy) => {
      await liveFirst(proxy, '/dribbled-head')
      const counts = await proxy.settled(25_000)
      // The shadow's 600 extra fields make it a diff, not an error: the head was read whole.
      expect(await proxy.metric('svc_responses_compared_total', { result: 'diff' })).toBe(1)
      expect(counts.received).toBe(1)
      const record = await proxy.waitForRecord('response diff detected')
      expect(String(record.diff)).toContain('and 581 more')
    }),
  )
})

async function waitUntil(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('condition not met in time')
    await Bun.sleep(10)
  }
}
