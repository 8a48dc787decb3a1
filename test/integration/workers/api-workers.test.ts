/**
 * The API with SVC_APP_WORKERS=2 on PostgreSQL, as operators run it: both
 * workers serve SVC_APP_PORT, whichever answers /metrics answers for both,
 * a killed worker is restarted without its counts being lost, SIGTERM
 * drains both; with PGlite more than one worker is refused
 * (docs/proxy.md "Workers").
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { captureBody } from '../../support/captures.ts'
import { createTestDatabase, DATABASE_HOOK_TIMEOUT_MS, type TestDatabase } from '../../support/database.ts'
import { familyOf, parseExposition, sampleOf } from '../../support/prometheus-text.ts'
import { freePorts } from '../../support/upstreams.ts'
import { spawnComponent, workerPids, type SpawnedComponent } from './spawned-component.ts'

const TEST_TIMEOUT_MS = 90_000
const KEY = 'workers-test-key-0123456789'
const PROMTOOL = '/usr/bin/promtool'
/** The lint line docs/metrics.md "Lint" accepts for the API. */
const ACCEPTED_LINT = 'db_client_connection_count non-histogram and non-summary metrics should not have "_count" suffix'

let database: TestDatabase
let api: SpawnedComponent
let url: string

beforeAll(async () => {
  database = await createTestDatabase('postgres')
  const [port] = freePorts(1) as [number]
  url = `http://127.0.0.1:${port}`
  api = spawnComponent('api', {
    SVC_APP_WORKERS: '2',
    SVC_APP_PORT: String(port),
    SVC_APP_DATABASE_URL: database.url,
    SVC_APP_API_KEY: KEY,
    SVC_APP_RATE_LIMIT: '100000',
    SVC_APP_DATABASE_MAX_CONNS: '4',
    SVC_APP_DATABASE_MIN_CONNS: '1',
  })
  await api.waitForRecord('the workers to be ready', (r) => r.msg === 'workers ready', 60_000)
}, DATABASE_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await api?.stop()
  await database?.drop()
})

/** One request on a connection of its own, so that the kernel picks a worker for each. */
function call(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(url + path, {
    method,
    keepalive: false,
    headers: { connection: 'close', authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

/** `http_server_request_duration_seconds_count` of one route, summed over methods and statuses. */
function routeCount(text: string, route: string): number {
  let sum = 0
  for (const line of text.split('\n')) {
    if (line.startsWith('http_server_request_duration_seconds_count{') && line.includes(`http_route="${route}"`)) {
      sum += Number(line.slice(line.lastIndexOf(' ') + 1))
    }
  }
  return sum
}

describe('the API with two workers on PostgreSQL', () => {
  let gateId: string
  const captures = 24

  test('createRequest and listRequests work across both workers', async () => {
    const created = await call('POST', '/gates', { name: 'workers', live_url: 'http://live.test', shadow_url: 'http://shadow.test' })
    expect(created.status).toBe(201)
    gateId = ((await created.json()) as { data: { id: string } }).data.id
    for (let i = 0; i < captures; i++) {
      const response = await call('POST', `/gates/${gateId}/requests`, captureBody({ path: `/items/${i}`, live: { i }, shadow: { i: i % 2 === 0 ? i : -i } }))
      expect(response.status).toBe(201)
    }
    // Both workers logged requests (each record names its worker).
    const workers = new Set(api.records.filter((r) => r.msg === 'request').map((r) => r.worker))
    expect([...workers].sort()).toEqual([0, 1])
    const listed = await call('GET', `/gates/${gateId}/requests?limit=100`)
    expect(listed.status).toBe(200)
    expect(((await listed.json()) as { data: unknown[] }).data.length).toBe(captures)
  }, TEST_TIMEOUT_MS)

  test('/metrics on any worker answers for both: the same exact totals every scrape, one valid exposition', async () => {
    const answered = new Set<unknown>()
    // Fresh connections land on either worker by the kernel's SO_REUSEPORT hash: at least eight
    // scrapes, more until both have answered (all of 40 on one worker: 1 in 2^39).
    for (let i = 0; i < 40 && (i < 8 || answered.size < 2); i++) {
      const before = api.records.length
      const response = await call('GET', '/metrics')
      expect(response.status).toBe(200)
      const text = await response.text()
      expect(routeCount(text, '/gates/:gate_id/requests')).toBe(captures + 1)
      const compared = familyOf(text, 'svc_responses_compared_total')
      expect(Number(sampleOf(compared, { gate: gateId, result: 'match' })?.value)).toBe(captures / 2)
      expect(Number(sampleOf(compared, { gate: gateId, result: 'diff' })?.value)).toBe(captures / 2)
      expect(familyOf(text, 'svc_database_ready').metrics.map((m) => m.value)).toEqual(['1'])
      const names = parseExposition(text).map((family) => family.name)
      expect(names.length).toBe(new Set(names).size)
      const scrape = await api.waitForRecord('the scrape to be logged', (r) => r.msg === 'request' && r['http.route'] === '/metrics', 5000, before)
      answered.add(scrape.worker)
      if (i === 0) {
        const check = Bun.spawnSync({ cmd: [PROMTOOL, 'check', 'metrics'], stdin: Buffer.from(text), stdout: 'pipe', stderr: 'pipe' })
        const lint = (check.stdout.toString() + check.stderr.toString()).split('\n').filter((line) => line.trim() !== '')
        expect(lint.filter((line) => !line.includes(ACCEPTED_LINT))).toEqual([])
      }
    }
    expect([...answered].sort()).toEqual([0, 1])
  }, TEST_TIMEOUT_MS)

  test('a killed worker is restarted and logged; what it counted stays in the totals', async () => {
    const from = api.records.length
    const victim = workerPids(api.records).get(1)!
    process.kill(victim, 'SIGKILL')
    const exited = await api.waitForRecord('the exit to be logged', (r) => r.msg === 'worker exited; restarting it', 20_000, from)
    expect(exited).toMatchObject({ worker: 1, pid: victim, signal: 'SIGKILL' })
    const ready = await api.waitForRecord('the restarted worker to serve', (r) => r.msg === 'worker ready' && r.worker === 1, 30_000, from)
    expect(ready.pid).not.toBe(victim)
    for (let i = 0; i < 6; i++) {
      const text = await (await call('GET', '/metrics')).text()
      expect(sampleOf(familyOf(text, 'svc_worker_restarts_total'))?.value).toBe('1')
      // The last scrape saw the killed worker's counts: they are kept, never lost to a restart.
      expect(routeCount(text, '/gates/:gate_id/requests')).toBe(captures + 1)
    }
    expect((await call('GET', '/health/ready')).status).toBe(200)
    expect((await call('GET', `/gates/${gateId}/requests?limit=1`)).status).toBe(200)
  }, TEST_TIMEOUT_MS)

  test('SIGTERM: both workers stop, the primary exits 0', async () => {
    api.process.kill('SIGTERM')
    expect(await api.process.exited).toBe(0)
    expect(api.records.filter((r) => r.msg === 'api stopped').map((r) => r.worker).sort()).toEqual([0, 1])
    expect(api.records.find((r) => r.msg === 'workers stopped')).toMatchObject({ clean: true })
  }, TEST_TIMEOUT_MS)
})

describe('the API on PGlite', () => {
  test('more than one worker is refused with one line', async () => {
    const spawned = spawnComponent('api', { SVC_APP_WORKERS: '2', SVC_APP_DATABASE_URL: 'pglite://memory', SVC_APP_API_KEY: KEY })
    try {
      expect(await spawned.process.exited).toBe(1)
      expect((await spawned.stderr()).trim()).toBe(
        'SVC_APP_WORKERS: "2" must be 1 with a pglite:// SVC_APP_DATABASE_URL: one process owns a PGlite database; use PostgreSQL for more workers',
      )
    } finally {
      await spawned.stop()
    }
  }, TEST_TIMEOUT_MS)
})
