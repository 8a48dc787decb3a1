/**
 * The proxy with SVC_APP_WORKERS=2, as operators run it: two worker
 * processes share SVC_APP_PORT (SO_REUSEPORT), the primary serves the admin
 * port with readiness and metrics over both, restarts a worker that dies,
 * and drains both on SIGTERM (docs/proxy.md "Workers").
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { freePorts, startUpstreamPair, type TestUpstream } from '../../support/upstreams.ts'
import { familyOf, parseExposition, sampleOf } from '../../support/prometheus-text.ts'
import { readReference } from '../../support/reference-doc.ts'
import { connectionsByOwner } from '../../support/socket-owners.ts'
import { spawnComponent, workerPids, type SpawnedComponent } from './spawned-component.ts'

/** Two Bun processes and a primary on a busy 2-core machine. */
const TEST_TIMEOUT_MS = 90_000
const PROMTOOL = '/usr/bin/promtool'

let live: TestUpstream
let shadow: TestUpstream
let stopPair: () => Promise<void>

beforeAll(async () => {
  const pair = await startUpstreamPair()
  live = pair.live
  shadow = pair.shadow
  stopPair = pair.stop
})

afterAll(async () => {
  await stopPair()
})

interface RunningWorkers {
  readonly spawned: SpawnedComponent
  readonly url: string
  readonly adminUrl: string
  readonly port: number
}

async function startWorkers(env: Record<string, string> = {}): Promise<RunningWorkers> {
  const [port, adminPort] = freePorts(2) as [number, number]
  const spawned = spawnComponent('proxy', {
    SVC_APP_WORKERS: '2',
    SVC_APP_PORT: String(port),
    SVC_APP_ADMIN_PORT: String(adminPort),
    SVC_APP_LIVE_URL: live.url,
    SVC_APP_SHADOW_URL: shadow.url,
    ...env,
  })
  await spawned.waitForRecord('the workers to be ready', (r) => r.msg === 'workers ready')
  return { spawned, url: `http://127.0.0.1:${port}`, adminUrl: `http://127.0.0.1:${adminPort}`, port }
}

/** One request on a connection of its own, so that the kernel picks a worker for each. */
function freshGet(url: string): Promise<Response> {
  return fetch(url, { headers: { connection: 'close' }, keepalive: false })
}

async function scrape(adminUrl: string): Promise<string> {
  const response = await fetch(`${adminUrl}/metrics`)
  expect(response.status).toBe(200)
  return response.text()
}

/** The sum of every sample line named `name` (a counter's series, or a histogram's `_count` lines). */
function total(text: string, name: string): number {
  let sum = 0
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return sum
}

/** Waits (bounded) until no comparison is in flight on any worker, and returns that scrape. */
async function quiescentScrape(adminUrl: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const text = await scrape(adminUrl)
    if (sampleOf(familyOf(text, 'svc_background_comparisons'))?.value === '0') return text
    await Bun.sleep(25)
  }
  throw new Error('comparisons still in flight after 200 scrapes')
}

describe('the proxy with two workers', () => {
  test('a variable of the other mode is warned of once, by the primary, not by each worker', async () => {
    const running = await startWorkers({ SVC_APP_API_KEY: 'not-used-standalone' })
    try {
      const warned = running.spawned.records.filter((r) => r.msg === 'variable ignored in this proxy mode')
      expect(warned.map((r) => [r.variable, r.mode, r.worker])).toEqual([['SVC_APP_API_KEY', 'standalone', undefined]])
    } finally {
      await running.spawned.stop()
    }
  }, TEST_TIMEOUT_MS)

  test('both workers accept connections on the one port', async () => {
    const running = await startWorkers()
    try {
      const pids = [...workerPids(running.spawned.records).values()]
      expect(new Set(pids).size).toBe(2)
      // Sixteen connections held open: the kernel spreads them over the two
      // listeners by their addresses, so each worker holds some
      // (all on one would have a chance of 2 in 65,536).
      const sockets = await Promise.all(
        Array.from({ length: 16 }, () =>
          Bun.connect({ hostname: '127.0.0.1', port: running.port, socket: { data() {} } }),
        ),
      )
      try {
        const owners = await waitForOwners(running.port, pids, 16)
        for (const pid of pids) expect(owners.get(pid)).toBeGreaterThan(0)
      } finally {
        for (const socket of sockets) socket.end()
      }
    } finally {
      await running.spawned.stop()
    }
  }, TEST_TIMEOUT_MS)

  test('the admin /metrics merges both workers: exact totals, one valid exposition', async () => {
    const running = await startWorkers()
    try {
      live.reset()
      const requests = 40
      for (let i = 0; i < requests; i++) expect((await freshGet(`${running.url}/json?i=${i}`)).status).toBe(200)
      const text = await quiescentScrape(running.adminUrl)
      // Every request counted once, over both workers; nothing lost silently.
      expect(total(text, 'http_server_request_duration_seconds_count')).toBe(requests)
      const compared = total(text, 'svc_responses_compared_total')
      const skipped = total(text, 'svc_comparisons_skipped_total')
      expect(compared + skipped).toBe(requests)
      expect(compared).toBe(requests)
      expect(sampleOf(familyOf(text, 'svc_worker_restarts_total'))?.value).toBe('0')
      // The primary's own family has its row (docs/reference/metrics.md "Workers").
      expect(readReference('metrics')).toContain('| `svc_worker_restarts_total` | counter | none |')
      // One family each, as one process writes them.
      const names = parseExposition(text).map((family) => family.name)
      expect(names.length).toBe(new Set(names).size)
      const check = Bun.spawnSync({ cmd: [PROMTOOL, 'check', 'metrics'], stdin: Buffer.from(text), stdout: 'pipe', stderr: 'pipe' })
      expect(check.stdout.toString() + check.stderr.toString()).toBe('')
      expect(check.exitCode).toBe(0)
    } finally {
      await running.spawned.stop()
    }
  }, TEST_TIMEOUT_MS)

  // The other tests here run the default, the raw server.
  test('with Bun.serve, both workers serve the one port and every request is counted once', async () => {
    const running = await startWorkers({ SVC_APP_PROXY_SERVER: 'bun' })
    try {
      const pids = [...workerPids(running.spawned.records).values()]
      // Held open, so that the kernel spreads them over both listeners (SO_REUSEPORT).
      const sockets = await Promise.all(
        Array.from({ length: 16 }, () => Bun.connect({ hostname: '127.0.0.1', port: running.port, socket: { data() {} } })),
      )
      try {
        const owners = await waitForOwners(running.port, pids, 16)
        for (const pid of pids) expect(owners.get(pid)).toBeGreaterThan(0)
      } finally {
        for (const socket of sockets) socket.end()
      }
      const requests = 20
      for (let i = 0; i < requests; i++) expect((await freshGet(`${running.url}/json?i=${i}`)).status).toBe(200)
      const text = await quiescentScrape(running.adminUrl)
      expect(total(text, 'http_server_request_duration_seconds_count')).toBe(requests)
      expect(total(text, 'svc_responses_compared_total')).toBe(requests)
    } finally {
      await running.spawned.stop()
    }
  }, TEST_TIMEOUT_MS)

  test('a worker killed under load is restarted and logged; requests on the other worker do not fail', async () => {
    const running = await startWorkers()
    try {
      const [victim] = [...workerPids(running.spawned.records).values()] as [number]
      const loops = 4
      const outcomes: Array<{ startedAt: number; endedAt: number; ok: boolean }> = []
      let killedAt = Number.POSITIVE_INFINITY
      let deadAt = Number.POSITIVE_INFINITY
      // A bounded client loop: fresh connections, no retries.
      const client = async () => {
        for (let i = 0; i < 150; i++) {
          const startedAt = performance.now()
          const ok = await freshGet(`${running.url}/json`).then(
            async (response) => response.status === 200 && (await response.text()).length > 0,
            () => false,
          )
          outcomes.push({ startedAt, endedAt: performance.now(), ok })
          if (performance.now() > deadAt + 2000 && i > 20) return
        }
      }
      const clients = Array.from({ length: loops }, client)
      await waitForCount(() => outcomes.length, 40)
      killedAt = performance.now()
      process.kill(victim, 'SIGKILL')
      deadAt = await waitForDeath(victim)
      await Promise.all(clients)

      // Only what the killed worker held can fail: connections it had
      // accepted or had waiting in its listen queue, so requests in flight
      // between the kill and its death (a few per client loop at most).
      // Nothing fails before the kill; everything started after it is gone
      // is served by the other worker or the restarted one.
      const failed = outcomes.filter((o) => !o.ok)
      for (const f of failed) {
        expect(f.endedAt).toBeGreaterThanOrEqual(killedAt)
        expect(f.startedAt).toBeLessThanOrEqual(deadAt)
      }
      const afterDeath = outcomes.filter((o) => o.startedAt > deadAt)
      expect(afterDeath.length).toBeGreaterThan(0)
      expect(afterDeath.filter((o) => !o.ok)).toEqual([])

      const exited = await running.spawned.waitForRecord('the exit to be logged', (r) => r.msg === 'worker exited; restarting it')
      expect(exited).toMatchObject({ level: 'WARN', pid: victim, signal: 'SIGKILL' })
      const restarted = await running.spawned.waitForRecord(
        'the restarted worker to serve',
        (r) => r.msg === 'worker ready' && r.worker === exited.worker && r.pid !== victim,
      )
      expect(workerPids(running.spawned.records).get(exited.worker as number)).toBe(restarted.pid as number)
      const readiness = await fetch(`${running.adminUrl}/health/ready`)
      expect(readiness.status).toBe(200)
      const text = await quiescentScrape(running.adminUrl)
      expect(sampleOf(familyOf(text, 'svc_worker_restarts_total'))?.value).toBe('1')
      parseExposition(text)
    } finally {
      await running.spawned.stop()
    }
  }, TEST_TIMEOUT_MS)

  test('SIGTERM: readiness 503, both workers drain their requests in flight, the primary exits 0', async () => {
    const running = await startWorkers()
    try {
      shadow.route('/slow', async () => {
        await Bun.sleep(600)
        return new Response('{"shadow":true}', { headers: { 'content-type': 'application/json' } })
      })
      live.reset()
      const inFlight = Array.from({ length: 6 }, (_, i) => freshGet(`${running.url}/slow?ms=700&i=${i}`))
      await live.waitForRequests(6)
      running.spawned.process.kill('SIGTERM')
      const stopping = await waitForStatus(`${running.adminUrl}/health/ready`, 503)
      expect(await stopping.json()).toEqual({ status: 'stopping' })
      for (const response of await Promise.all(inFlight)) {
        expect(response.status).toBe(200)
        expect(await response.json()).toEqual({ slept: 700 })
      }
      expect(await running.spawned.process.exited).toBe(0)
      const drained = running.spawned.records.filter((r) => r.msg === 'background comparisons drained')
      expect(drained.map((r) => r.worker).sort()).toEqual([0, 1])
      expect(running.spawned.records.find((r) => r.msg === 'workers stopped')).toMatchObject({ clean: true })
    } finally {
      await running.spawned.stop()
    }
  }, TEST_TIMEOUT_MS)
})

describe('readiness across startup', () => {
  test('503 until every worker serves: API mode, the gate held back from one worker', async () => {
    const gateId = crypto.randomUUID()
    const held: Array<() => void> = []
    const api = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        if (new URL(request.url).pathname !== `/gates/${gateId}`) return new Response(null, { status: 404 })
        await new Promise<void>((resolve) => held.push(resolve))
        return Response.json({ data: { id: gateId, name: 'held', live_url: live.url, shadow_url: shadow.url, redacted_fields: [] } })
      },
    })
    const [port, adminPort] = freePorts(2) as [number, number]
    const spawned = spawnComponent('proxy', {
      SVC_APP_WORKERS: '2',
      SVC_APP_PORT: String(port),
      SVC_APP_ADMIN_PORT: String(adminPort),
      SVC_APP_API_URL: `http://127.0.0.1:${api.port}`,
      SVC_APP_GATE_ID: gateId,
      SVC_APP_API_KEY: 'a-key-of-sixteen-chars',
    })
    const ready = `http://127.0.0.1:${adminPort}/health/ready`
    try {
      await waitForCount(() => held.length, 2, 30_000)
      const starting = await fetch(ready)
      expect(starting.status).toBe(503)
      expect(await starting.json()).toEqual({ status: 'starting' })
      held.shift()!()
      await spawned.waitForRecord('one worker to serve', (r) => r.msg === 'worker ready')
      const oneOfTwo = await fetch(ready)
      expect(oneOfTwo.status).toBe(503)
      expect(await oneOfTwo.json()).toEqual({ status: 'starting' })
      held.shift()!()
      await spawned.waitForRecord('the workers to be ready', (r) => r.msg === 'workers ready')
      expect((await fetch(ready)).status).toBe(200)
    } finally {
      for (const release of held) release()
      await spawned.stop()
      api.stop(true)
    }
  }, TEST_TIMEOUT_MS)

  test('a port in use stops startup with one line, before any worker starts', async () => {
    const taken = Bun.serve({ hostname: '0.0.0.0', port: 0, reusePort: false, fetch: () => new Response() })
    const [adminPort] = freePorts(1) as [number]
    const spawned = spawnComponent('proxy', {
      SVC_APP_WORKERS: '2',
      SVC_APP_PORT: String(taken.port),
      SVC_APP_ADMIN_PORT: String(adminPort),
      SVC_APP_LIVE_URL: live.url,
      SVC_APP_SHADOW_URL: shadow.url,
    })
    try {
      expect(await spawned.process.exited).toBe(1)
      expect((await spawned.stderr()).trim()).toBe(`SVC_APP_PORT: "${taken.port}" is already in use by another process`)
      expect(spawned.records.find((r) => r.msg === 'worker started')).toBeUndefined()
    } finally {
      await spawned.stop()
      taken.stop(true)
    }
  }, TEST_TIMEOUT_MS)

  test('a bad SVC_APP_WORKERS stops startup with one line', async () => {
    const spawned = spawnComponent('proxy', { SVC_APP_WORKERS: 'many', SVC_APP_LIVE_URL: live.url, SVC_APP_SHADOW_URL: shadow.url })
    try {
      expect(await spawned.process.exited).toBe(1)
      expect((await spawned.stderr()).trim()).toBe('SVC_APP_WORKERS: "many" must be auto or an integer from 1 to 256')
    } finally {
      await spawned.stop()
    }
  }, TEST_TIMEOUT_MS)
})

async function waitForOwners(port: number, pids: readonly number[], connections: number): Promise<Map<number, number>> {
  for (let i = 0; i < 200; i++) {
    const owners = connectionsByOwner(port, pids)
    if ([...owners.values()].reduce((a, b) => a + b, 0) >= connections) return owners
    await Bun.sleep(25)
  }
  throw new Error(`the ${connections} connections were not all accepted`)
}

async function waitForCount(count: () => number, atLeast: number, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (count() < atLeast) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${atLeast} (have ${count()})`)
    await Bun.sleep(10)
  }
}

/** When the process is gone (its listening socket closed with it), polled, bounded. */
async function waitForDeath(pid: number): Promise<number> {
  for (let i = 0; i < 1000; i++) {
    try {
      process.kill(pid, 0)
    } catch {
      return performance.now()
    }
    await Bun.sleep(5)
  }
  throw new Error(`process ${pid} still alive`)
}

async function waitForStatus(url: string, status: number): Promise<Response> {
  for (let i = 0; i < 400; i++) {
    const response = await fetch(url)
    if (response.status === status) return response
    await Bun.sleep(10)
  }
  throw new Error(`${url} never answered ${status}`)
}
