/**
 * The proxy as operators run it: `bun run src/main.ts proxy` in its own
 * process, configured by the environment, stopped by a signal.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort, freePorts, refusedUrl, startUpstreamPair, type TestUpstream, waitFor } from '../../support/upstreams.ts'

const MAIN = resolve(import.meta.dir, '../../../src/main.ts')
/** Starting a Bun process takes a second or two on a busy 2-core machine. */
const SPAWN_TIMEOUT_MS = 30_000

let live: TestUpstream
let shadow: TestUpstream
let stopPair: () => Promise<void>
/** An empty working directory, so that no developer's .env leaks in. */
let cwd: string

beforeAll(async () => {
  const pair = await startUpstreamPair()
  live = pair.live
  shadow = pair.shadow
  stopPair = pair.stop
  cwd = mkdtempSync(join(tmpdir(), 'proxy-lifecycle-'))
})

afterAll(async () => {
  await stopPair()
  rmSync(cwd, { recursive: true, force: true })
})

interface SpawnedProxy {
  readonly process: Bun.Subprocess<'ignore', 'pipe', 'pipe'>
  readonly url: string
  readonly adminUrl: string
  /** stdout lines so far (JSON log records). */
  readonly lines: string[]
}

function spawnMain(env: Record<string, string>) {
  return Bun.spawn(['bun', 'run', MAIN, 'proxy'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
}

/** Starts the proxy and waits (bounded) for its "proxy listening" record. */
async function spawnProxy(env: Record<string, string>): Promise<SpawnedProxy> {
  const [proxyPort, adminPort] = freePorts(2)
  const child = spawnMain({ SVC_APP_PORT: String(proxyPort), SVC_APP_ADMIN_PORT: String(adminPort), SVC_APP_LOG_FORMAT: 'json', SVC_APP_LOG_LEVEL: 'info', ...env })
  const lines: string[] = []
  void (async () => {
    const decoder = new TextDecoder()
    let buffered = ''
    for await (const chunk of child.stdout) {
      buffered += decoder.decode(chunk, { stream: true })
      const parts = buffered.split('\n')
      buffered = parts.pop()!
      lines.push(...parts.filter((line) => line !== ''))
    }
  })()
  const listening = await waitFor(
    () => lines.map((line) => JSON.parse(line) as Record<string, string>).find((r) => r.msg === 'proxy listening'),
    15_000,
    'the proxy to listen',
  )
  const port = (text: string) => new URL(text).port
  return {
    process: child,
    url: `http://127.0.0.1:${port(listening.url!)}`,
    adminUrl: `http://127.0.0.1:${port(listening.admin!)}`,
    lines,
  }
}

describe('graceful shutdown', () => {
  test('SIGTERM: in-flight live requests finish, comparisons drain, exit 0', async () => {
    const proxy = await spawnProxy({ SVC_APP_LIVE_URL: live.url, SVC_APP_SHADOW_URL: shadow.url })
    try {
      live.reset()
      shadow.reset()
      shadow.route('/slow', async () => {
        await Bun.sleep(800)
        return new Response('{"shadow":true}', { headers: { 'content-type': 'application/json' } })
      })
      const inFlight = fetch(`${proxy.url}/slow?ms=500`)
      await live.waitForRequests(1)
      proxy.process.kill('SIGTERM')
      const response = await inFlight
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ slept: 500 })
      expect(await proxy.process.exited).toBe(0)
      const records = proxy.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
      // The shadow answered after live: its comparison still completed before exit.
      expect(records.find((r) => r.msg === 'response diff detected')).toBeDefined()
      expect(records.find((r) => r.msg === 'background comparisons drained')).toMatchObject({ aborted: 0 })
    } finally {
      proxy.process.kill('SIGKILL')
    }
  }, SPAWN_TIMEOUT_MS)

  test('SIGTERM: the warnings held back are counted before exit', async () => {
    // A shadow that is down fails every comparison: one warning per interval, then the count.
    const proxy = await spawnProxy({ SVC_APP_LIVE_URL: live.url, SVC_APP_SHADOW_URL: refusedUrl() })
    try {
      for (let i = 0; i < 20; i++) expect((await fetch(`${proxy.url}/json`)).status).toBe(200)
      proxy.process.kill('SIGTERM')
      expect(await proxy.process.exited).toBe(0)
      const failures = proxy.lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((r) => r.msg === 'comparison failed')
      // The first one as it happened, then at exit the last one with how many were held back.
      expect(failures.map((r) => r.suppressed)).toEqual([undefined, 19])
    } finally {
      proxy.process.kill('SIGKILL')
    }
  }, SPAWN_TIMEOUT_MS)

  test('SIGINT: exit 0', async () => {
    const liveWithCredentials = live.url.replace('http://', 'http://deploy:live-secret@')
    const proxy = await spawnProxy({ SVC_APP_LIVE_URL: liveWithCredentials, SVC_APP_SHADOW_URL: shadow.url, SVC_APP_SAMPLNG_RATE: '0.5' })
    try {
      expect((await fetch(`${proxy.url}/json`)).status).toBe(200)
      const records = proxy.lines.map((line) => JSON.parse(line) as Record<string, string>)
      // The upstream's address is logged, its password is not.
      expect(records.find((r) => r.msg === 'proxy listening')!.live).toBe(live.url.replace('http://', 'http://deploy:***@'))
      // With nothing set, the raw server serves, and the record says so.
      expect(records.find((r) => r.msg === 'proxy listening')!.server).toBe('raw')
      expect(proxy.lines.join('\n')).not.toContain('live-secret')
      // A misspelt variable is said, with the name it most likely meant.
      expect(records.find((r) => r.msg === 'unknown variable ignored')).toMatchObject({
        variable: 'SVC_APP_SAMPLNG_RATE',
        did_you_mean: 'SVC_APP_SAMPLING_RATE',
      })
      proxy.process.kill('SIGINT')
      expect(await proxy.process.exited).toBe(0)
    } finally {
      proxy.process.kill('SIGKILL')
    }
  }, SPAWN_TIMEOUT_MS)

  test('SIGTERM while the gate is still being fetched: exit 0 at once', async () => {
    // An API that accepts and never answers: startup waits on the gate.
    const silent = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const [port, adminPort] = freePorts(2)
    const child = spawnMain({
      SVC_APP_API_URL: `http://127.0.0.1:${silent.port}`,
      SVC_APP_GATE_ID: crypto.randomUUID(),
      SVC_APP_API_KEY: 'a-key-of-sixteen-chars',
      SVC_APP_API_TIMEOUT: '60s',
      SVC_APP_PORT: String(port),
      SVC_APP_ADMIN_PORT: String(adminPort),
    })
    try {
      const starting = await waitFor(
        async () => {
          const res = await fetch(`http://127.0.0.1:${adminPort}/health/ready`).catch(() => undefined)
          return res?.status === 503 ? res : undefined
        },
        10_000,
        'readiness 503 while the gate is fetched',
        100,
      )
      expect(starting.status).toBe(503)
      const sent = performance.now()
      child.kill('SIGTERM')
      expect(await child.exited).toBe(0)
      expect(performance.now() - sent).toBeLessThan(5_000)
    } finally {
      child.kill('SIGKILL')
      silent.stop(true)
    }
  }, SPAWN_TIMEOUT_MS)

  test('comparisons still running at the drain bound are abandoned, and the exit is still 0', async () => {
    const proxy = await spawnProxy({
      SVC_APP_LIVE_URL: live.url,
      SVC_APP_SHADOW_URL: shadow.url,
      SVC_APP_SHADOW_TIMEOUT: '1s',
    })
    try {
      shadow.reset()
      shadow.route('/hang', () => new Promise<Response>(() => {}))
      live.route('/hang', () => new Response('ok'))
      expect(await (await fetch(`${proxy.url}/hang`)).text()).toBe('ok')
      await shadow.waitForRequests(1)
      const started = performance.now()
      proxy.process.kill('SIGTERM')
      expect(await proxy.process.exited).toBe(0)
      // Bounded by the shadow timeout (1 s), with room for process start-up noise.
      expect(performance.now() - started).toBeLessThan(5000)
    } finally {
      proxy.process.kill('SIGKILL')
    }
  }, SPAWN_TIMEOUT_MS)
})

describe('startup errors: exit 1 and one line naming the variable', () => {
  const standalone = { SVC_APP_LIVE_URL: 'http://127.0.0.1:1', SVC_APP_SHADOW_URL: 'http://127.0.0.1:2' }
  const cases: Array<[string, Record<string, string>, string]> = [
    ['no mode at all', {}, 'SVC_APP_API_URL or SVC_APP_LIVE_URL: is required; configure exactly one proxy mode'],
    [
      'both modes',
      { ...standalone, SVC_APP_API_URL: 'http://127.0.0.1:3' },
      'SVC_APP_LIVE_URL: is set together with SVC_APP_API_URL',
    ],
    [
      'API mode without the gate id',
      { SVC_APP_API_URL: 'http://127.0.0.1:3', SVC_APP_API_KEY: 'k'.repeat(20) },
      'SVC_APP_GATE_ID: is required in API mode (SVC_APP_API_URL is set)',
    ],
    ['a sampling rate above 1', { ...standalone, SVC_APP_SAMPLING_RATE: '1.5' }, 'SVC_APP_SAMPLING_RATE: "1.5" must be a number from 0 to 1'],
    [
      'a malformed shadow rule',
      { ...standalone, SVC_APP_SHADOW_RULES: 'allow GET:/a,permit POST:/b' },
      'SVC_APP_SHADOW_RULES: "allow GET:/a,permit POST:/b" rule 2 "permit POST:/b" has action "permit"',
    ],
    ['the admin port equal to the port', { ...standalone, SVC_APP_PORT: '9000', SVC_APP_ADMIN_PORT: '9000' }, 'SVC_APP_ADMIN_PORT: "9000" must differ from SVC_APP_PORT'],
    ['a write timeout below the live timeout', { ...standalone, SVC_APP_WRITE_TIMEOUT: '2s' }, 'SVC_APP_WRITE_TIMEOUT: "2s" must be at least SVC_APP_LIVE_TIMEOUT (5s)'],
    ['a bad duration', { ...standalone, SVC_APP_LIVE_TIMEOUT: '5 seconds' }, 'SVC_APP_LIVE_TIMEOUT: "5 seconds" must be a duration'],
  ]
  for (const [name, env, expected] of cases) {
    test(name, async () => {
      const child = spawnMain(env)
      const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
      expect(code).toBe(1)
      expect(stdout).toBe('')
      const lines = stderr.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toStartWith(expected)
    }, SPAWN_TIMEOUT_MS)
  }

  test('a short API key is refused without echoing it', async () => {
    const secret = 'hunter2-secret'
    const child = spawnMain({ SVC_APP_API_URL: 'http://127.0.0.1:3', SVC_APP_GATE_ID: crypto.randomUUID(), SVC_APP_API_KEY: secret })
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
    expect(code).toBe(1)
    expect(stderr.trim()).toBe('SVC_APP_API_KEY: the value (14 characters, not shown) must be at least 16 characters')
    expect(stderr).not.toContain(secret)
  }, SPAWN_TIMEOUT_MS)
})

describe('a port in use', () => {
  test('fails startup with one line naming the variable', async () => {
    const taken = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
    try {
      const child = spawnMain({ SVC_APP_LIVE_URL: live.url, SVC_APP_SHADOW_URL: shadow.url, SVC_APP_PORT: String(taken.port), SVC_APP_ADMIN_PORT: String(freePort()) })
      const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
      expect(code).toBe(1)
      expect(stderr.trim()).toBe(`SVC_APP_PORT: "${taken.port}" is already in use by another process`)
    } finally {
      taken.stop(true)
    }
  }, SPAWN_TIMEOUT_MS)
})
