/**
 * A hostile live, as a raw TCP server, behind a standalone proxy: what
 * live sends that no Response can carry is a 502 to the client, counted
 * like any live failure; it never holds a connection slot, never reaches
 * the log, and never changes what the client gets between a shadowed and
 * an unshadowed request.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startHostileUpstream, type HostileUpstream } from '../../support/hostile-upstream.ts'
import { startUpstream, waitFor, type TestUpstream } from '../../support/upstreams.ts'
import { apiModeEnv, proxyServerUnderTest, standaloneEnv, startTestProxy, type ProxyUnderTest } from './proxy-harness.ts'
import { startScriptedApi } from './scripted-api.ts'

const SECRET = 'tok-SECRET-123'
const SECRET_BODY = JSON.stringify({ token: SECRET, id: 1 })
/** Over the 64 KiB under which live's body is passed on as it came. */
const LARGE = 'x'.repeat(100_000)

let live: HostileUpstream
let shadow: TestUpstream
let repeats = 0

beforeAll(async () => {
  shadow = await startUpstream('shadow')
  live = startHostileUpstream({
    // Each answer closes its connection, so that no request waits on a kept one the raw server no longer reads.
    '/ok': (c) => c.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'),
    '/status-700-chunked': (c) => c.write('HTTP/1.1 700 Odd\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'),
    '/status-000-large': (c) => c.write(`HTTP/1.1 000 Odd\r\nConnection: close\r\nContent-Length: ${LARGE.length}\r\n\r\n${LARGE}`),
    '/status-000-secret': (c) => c.write(`HTTP/1.1 000 Odd\r\nConnection: close\r\nContent-Length: ${SECRET_BODY.length}\r\n\r\n${SECRET_BODY}`),
    '/status-099-keep-alive': (c) => c.write('HTTP/1.1 099 Odd\r\nConnection: close\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\nok'),
    '/status-999': (c) => c.write('HTTP/1.1 999 Odd\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'),
    // Live's first answer is fine; its repeat (a noise check) has the status 000 and a secret for body.
    '/repeat-000': (c) => {
      repeats++
      if (repeats % 2 === 1) c.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n{"n":1}\n')
      else c.write(`HTTP/1.1 000 Odd\r\nConnection: close\r\nContent-Length: ${SECRET_BODY.length}\r\n\r\n${SECRET_BODY}`)
    },
    '/cut-short': (c) => {
      c.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok')
      c.end()
    },
  })
})

afterAll(async () => {
  live.stop()
  await shadow.stop()
})

async function withProxy(env: Record<string, string>, body: (proxy: ProxyUnderTest) => Promise<void>): Promise<void> {
  const proxy = await startTestProxy(
    standaloneEnv(live.url, shadow.url, {
      // Two slots: a response that held one for good would starve the third request.
      SVC_APP_HTTP_CLIENT_MAX_CONNS_PER_HOST: '2',
      SVC_APP_LIVE_TIMEOUT: '2s',
      SVC_APP_REDACTED_FIELDS: 'body.token',
      ...env,
    }),
  )
  try {
    await body(proxy)
  } finally {
    await proxy.stop()
  }
}

const BAD_STATUSES = ['/status-700-chunked', '/status-000-large', '/status-000-secret', '/status-099-keep-alive', '/status-999']

describe.each([
  ['shadowed', '1'],
  ['not shadowed', '0'],
])('a live status outside 200..599, %s', (_, rate) => {
  test('is a 502 naming the status, holds no slot, and every request is accounted for', async () => {
    await withProxy({ SVC_APP_SAMPLING_RATE: rate }, async (proxy) => {
      for (const path of [...BAD_STATUSES, ...BAD_STATUSES]) {
        const res = await fetch(`${proxy.url}${path}`)
        expect(res.status).toBe(502)
        const problem = (await res.json()) as { type: string; detail: string }
        expect(problem.type).toBe('/errors/bad-gateway')
        expect(problem.detail).toMatch(/^live: bad response: status \d+ outside 200\.\.599$/)
      }
      // Ten bad answers through two slots: a slot held by any of them would make this a 504.
      const ok = await fetch(`${proxy.url}/ok`)
      expect(ok.status).toBe(200)
      expect(await ok.text()).toBe('ok')
      const counts = await proxy.settled()
      expect(counts.received).toBe(11)
      if (rate === '1') {
        expect(await proxy.metric('svc_responses_compared_total', { result: 'error' })).toBe(10)
        // Live's failures, not the candidate's.
        expect(await proxy.metric('svc_comparison_errors_total', { side: 'live' })).toBe(10)
      }
      // Live's body is no error text: never read, never logged.
      expect(proxy.logs.join('\n')).not.toContain(SECRET)
      expect(proxy.records().filter((r) => r.level === 'error')).toEqual([])
    })
  })
})

describe.each([
  ['shadowed', '1'],
  ['not shadowed', '0'],
])('a small live body cut short, %s', (_, rate) => {
  test('is live failing: a 502 when no head went out yet, never a 500 or an error log', async () => {
    await withProxy({ SVC_APP_SAMPLING_RATE: rate }, async (proxy) => {
      // Whether Bun sent the head before the body broke is a race, shadowed or not: asked
      // until a few answers came before it did (at most 200 times, a few ms each).
      let problems = 0
      for (let i = 0; i < 200 && problems < 3; i++) {
        const outcome = await fetch(`${proxy.url}/cut-short`).then(
          async (res) => ({ status: res.status, body: await res.text().catch(() => 'cut') }),
          () => ({ status: 0, body: 'cut' }),
        )
        // Should the head have gone out, the transfer breaks: what any proxy does then.
        if (outcome.status === 0 || outcome.body === 'cut') continue
        expect(outcome.status).toBe(502)
        expect(JSON.parse(outcome.body)).toMatchObject({ type: '/errors/bad-gateway', detail: 'live: connection reset' })
        problems++
      }
      // Shadowed, the copy taken by clone() keeps the head back until the body is in, so some answers
      // are 502s; not shadowed, one process may send every head first (then each transfer breaks).
      // The raw server sends live's head with the first piece of its body: every transfer breaks.
      if (rate === '1' && proxyServerUnderTest === 'bun') expect(problems).toBeGreaterThan(0)
      if (proxyServerUnderTest === 'raw') expect(problems).toBe(0)
      expect(proxy.records().filter((r) => r.level === 'error')).toEqual([])
      const ok = await fetch(`${proxy.url}/ok`)
      expect(ok.status).toBe(200)
    })
  })
})

test("live's repeat with a status outside 200..599 is a failed repeat with a fixed text: its body is never stored", async () => {
  shadow.route('/repeat-000', () => new Response('{"n":1}\n', { headers: { 'content-type': 'application/json' } }))
  const api = startScriptedApi({ liveUrl: live.url, shadowUrl: shadow.url })
  const proxy = await startTestProxy(apiModeEnv(api, { SVC_APP_NOISE_SAMPLE_RATE: '1' }))
  try {
    const res = await fetch(`${proxy.url}/repeat-000`)
    expect(res.status).toBe(200)
    await res.arrayBuffer()
    await proxy.settled()
    const [report] = await waitFor(() => (api.reports.length === 1 ? api.reports : undefined), 5000, 'the report')
    const repeat = report!.body.live_repeat_response as { status_code: number; body: string }
    expect(repeat.status_code).toBe(0)
    expect(Buffer.from(repeat.body, 'base64').toString()).toBe('live: bad response: status 0 outside 200..599')
    expect(proxy.logs.join('\n')).not.toContain(SECRET)
  } finally {
    await proxy.stop()
    api.stop()
  }
})
