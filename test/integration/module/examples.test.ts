/**
 * examples/ must work as written: the block file has every directive and
 * parses, the host apps serve their routes and shadow /api, and each
 * example runs as a program and shuts down cleanly on SIGTERM.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../../../examples/bun-serve-host.ts'
import { createApp } from '../../../examples/elysia-host.ts'
import {
  HTTP_CLIENT_DIRECTIVES,
  parseModuleConfig,
  SVC_GATE_DIRECTIVES,
  svcGate,
  type SvcGate,
} from '../../../src/module/index.ts'
import { sumSamples } from '../../support/prometheus-text.ts'
import { json, startUpstreamPair, waitFor, type TestUpstream } from '../../support/upstreams.ts'
import { memoryLogger } from './module-harness.ts'

const ROOT = join(import.meta.dir, '../../..')
const CONF = join(ROOT, 'examples/svc_gate.conf')

let live: TestUpstream
let shadow: TestUpstream
let stopPair: () => Promise<void>
let dir: string

/** The example programs a test started; stopped by the test, or killed here if it failed first. */
const children = new Set<Bun.Subprocess>()

beforeAll(async () => {
  const pair = await startUpstreamPair()
  live = pair.live
  shadow = pair.shadow
  stopPair = pair.stop
  dir = mkdtempSync(join(tmpdir(), 'svc-gate-examples-'))
})

afterEach(() => {
  live.reset()
  shadow.reset()
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  children.clear()
})

afterAll(async () => {
  await stopPair()
  rmSync(dir, { recursive: true, force: true })
})

/** The example block with its URLs pointed at the test upstreams. */
async function exampleBlock(): Promise<string> {
  const text = await Bun.file(CONF).text()
  return text
    .replace('http://127.0.0.1:9001', live.url)
    .replace('http://127.0.0.1:9002', shadow.url)
}

describe('examples/svc_gate.conf', () => {
  test('sets every directive, the nested http_client block included', async () => {
    const text = await Bun.file(CONF).text()
    for (const directive of [...SVC_GATE_DIRECTIVES, ...HTTP_CLIENT_DIRECTIVES]) {
      expect(text).toMatch(new RegExp(`^ +${directive} `, 'm'))
    }
  })

  test('parses to the configuration its comments describe', async () => {
    const config = parseModuleConfig(await Bun.file(CONF).text())
    expect(config).toMatchObject({
      live: 'http://127.0.0.1:9001',
      shadow: 'http://127.0.0.1:9002',
      samplingRate: 1,
      maxBodySize: 10_485_760,
      shadowRules: 'allow POST:/api/search, deny GET:/api/admin/*',
      diffIgnoredFields: ['body.generated_at', 'body.request_id', 'headers.X-Trace-Id'],
      diffIncludedFields: [],
      diffFloatTolerance: 0.015,
      redactedFields: ['body.customer.email', 'body.customer.phone'],
      trustedProxies: ['127.0.0.1', '::1'],
      endpoints: ['/api/products/{sku}', '/api/search'],
      noiseSampleRate: 0.1,
      noiseMaxPerSecond: 5,
    })
  })
})

describe('the example hosts, imported', () => {
  const hosts = {
    'elysia-host.ts': (gate: SvcGate) => {
      const app = createApp(gate).listen({ hostname: '127.0.0.1', port: 0 })
      return {
        url: `http://127.0.0.1:${app.server!.port}`,
        stop: async () => void (await app.stop(true)),
      }
    },
    'bun-serve-host.ts': (gate: SvcGate) => {
      const server = startServer(gate, 0)
      return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
    },
  }

  for (const [name, start] of Object.entries(hosts)) {
    test(`${name}: own routes by the host, /api shadowed by the block’s rules, metrics on /metrics`, async () => {
      const gate = svcGate(await exampleBlock(), { prefix: '/api', logger: memoryLogger().logger })
      const host = start(gate)
      try {
        expect(await (await fetch(`${host.url}/health`)).json()).toEqual({ status: 'ok' })
        const version = await fetch(`${host.url}/api/version`)
        expect(await version.json()).toEqual({ version: '1.0.0', served_by: 'host' })
        const order = await fetch(`${host.url}/orders`, {
          method: 'POST',
          body: '{"sku":"A-1"}',
          headers: { 'content-type': 'application/json' },
        })
        expect(await order.json()).toEqual({ received: { sku: 'A-1' } })
        expect(live.requests).toHaveLength(0)

        live.route('/api/products', () => json({ items: [1, 2], generated_at: 'now' }))
        shadow.route('/api/products', () => json({ items: [1, 2], generated_at: 'later' }))
        const products = await fetch(`${host.url}/api/products`)
        expect(await products.json()).toEqual({ items: [1, 2], generated_at: 'now' })
        await (
          await fetch(`${host.url}/api/search`, { method: 'POST', body: '{"q":"mug"}' })
        ).text()
        await (await fetch(`${host.url}/api/admin/users`)).text()
        await (await fetch(`${host.url}/api/orders`, { method: 'POST', body: '{}' })).text()
        await waitFor(() =>
          gate.inFlight === 0 && shadow.requests.length === 2 ? true : undefined,
        )
        expect(shadow.requests.map((r) => `${r.method} ${r.target}`).sort()).toEqual([
          'GET /api/products',
          'POST /api/search',
        ])
        const metrics = await (await fetch(`${host.url}/metrics`)).text()
        // generated_at is ignored by the block: both comparisons match.
        expect(
          sumSamples(metrics, 'svc_responses_compared_total', { gate: '', result: 'match' }),
        ).toBe(2)
        expect(
          sumSamples(metrics, 'svc_comparisons_skipped_total', { reason: 'denied_by_rule' }),
        ).toBe(2)
      } finally {
        await host.stop()
        await gate.close()
      }
    })
  }
})

/** Runs an example with `bun run`, waits for its "listening on" line, and gives its URL. */
async function runExample(args: string[]): Promise<{ child: Bun.Subprocess; url: string }> {
  const child = Bun.spawn([process.execPath, 'run', ...args], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'inherit',
  })
  children.add(child)
  let output = ''
  let ended = false
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of child.stdout) output += decoder.decode(chunk, { stream: true })
    ended = true
  })()
  const url = await waitFor(
    () => {
      const found = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      if (found === undefined && ended)
        throw new Error(`${args[0]} exited before listening: ${output}`)
      return found
    },
    10_000,
    `${args[0]} to listen`,
  )
  return { child, url }
}

describe('the examples as programs', () => {
  const runs: Record<string, () => string[]> = {
    'elysia-host.ts': () => ['examples/elysia-host.ts', '0', join(dir, 'svc_gate.conf')],
    'bun-serve-host.ts': () => ['examples/bun-serve-host.ts', '0', live.url, shadow.url],
  }

  for (const [name, args] of Object.entries(runs)) {
    test(`bun run examples/${name} serves, shadows, and exits 0 on SIGTERM`, async () => {
      await Bun.write(join(dir, 'svc_gate.conf'), await exampleBlock())
      const { child, url } = await runExample(args())
      expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' })
      expect(await (await fetch(`${url}/api/anything`)).json()).toEqual({ path: '/api/anything' })
      await shadow.waitForRequests(1)
      expect(shadow.requests[0]!.headers.get('x-svc-mode')).toBe('shadow')
      child.kill('SIGTERM')
      const code = await Promise.race([child.exited, Bun.sleep(10_000).then(() => 'still running')])
      expect(code).toBe(0)
    })
  }
})
