import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const MAIN = join(import.meta.dir, '../../../src/main.ts')
const API = 'http://127.0.0.1:8090'
const cwd = mkdtempSync(join(tmpdir(), 'svc-demo-test-'))

function startDemo(...args: string[]) {
  return Bun.spawn(['bun', 'run', MAIN, 'demo', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
}

type Demo = ReturnType<typeof startDemo>

async function until<T>(demo: Demo, what: string, probe: () => Promise<T | undefined>, attempts = 150): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    if (demo.exitCode !== null) {
      throw new Error(`the demo exited (${demo.exitCode}) while waiting for ${what}: ${await new Response(demo.stderr).text()}`)
    }
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    await Bun.sleep(200)
  }
  throw new Error(`timed out waiting for ${what}`)
}

type Summary = { has_diff: boolean; shadow_response: { status_code: number } }
type Suggestion = { field: string; reason: string }
type Gate = { id: string; diff_config: { ignored_fields: string[]; included_fields: string[]; float_tolerance: number; sort_arrays: boolean } }

async function call<T>(key: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${API}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return (await res.json()) as T
}

async function demoGate(key: string): Promise<Gate> {
  return (await call<{ data: Gate[] }>(key, 'GET', '/gates')).data[0]!
}

async function captures(key: string, from?: string): Promise<{ gateId: string; items: Summary[]; total: number }> {
  const gateId = (await demoGate(key)).id
  const query = from ? `&from=${encodeURIComponent(from)}` : ''
  const page = await call<{ data: Summary[]; pagination: { total: number } }>(key, 'GET', `/gates/${gateId}/requests?limit=100${query}`)
  return { gateId, items: page.data, total: page.pagination.total }
}

/** The noise fields of the sample services, as the hub's "Ignore all" would add them. */
const NOISE_FIELDS = ['body.generated_at', 'body.request_id']

afterAll(() => rmSync(cwd, { recursive: true, force: true }))

describe('bun run demo', () => {
  test('differs everywhere at first, suggests ignoring its noise, matches once it is ignored; keeps its data across restarts, and --reset wipes it', async () => {
    let demo = startDemo()
    try {
      const key = await until(demo, 'the demo key', async () => readFileSync(join(cwd, '.svc-demo/demo-key'), 'utf8').trim() || undefined)
      // The gate starts without the noise ignored: every capture differs, some shadows fail.
      expect((await until(demo, 'the demo gate', () => demoGate(key))).diff_config.ignored_fields).toEqual([])
      const first = await until(demo, 'diffs and a shadow 500', async () => {
        const c = await captures(key)
        const errors = c.items.filter((r) => r.shadow_response.status_code >= 500).length
        return c.items.length >= 20 && errors > 0 ? c : undefined
      })
      expect(first.items.every((r) => r.has_diff)).toBe(true)

      // The noise checks find the timestamp and the request id within a minute or so.
      const suggested = await until(
        demo,
        'the noise suggested',
        async () => {
          const list = (await call<{ data: Suggestion[] }>(key, 'GET', `/gates/${first.gateId}/suggestions`)).data
          const noise = list.filter((s) => s.reason === 'noise').map((s) => s.field)
          return NOISE_FIELDS.every((f) => noise.includes(f)) ? list : undefined
        },
        600,
      )
      expect(suggested.map((s) => s.field).sort()).toEqual(NOISE_FIELDS)
      const fields = (await call<{ data: Array<{ path: string; classification: string }> }>(key, 'GET', `/gates/${first.gateId}/fields?limit=100`)).data
      expect(fields.filter((f) => f.path === '/body/generated_at').map((f) => f.classification)).toContain('noise')

      // What "Ignore all" and "Save" send: the captures from then on match, but for the real differences.
      const gate = await demoGate(key)
      const savedAt = new Date().toISOString()
      await call(key, 'PATCH', `/gates/${gate.id}`, { diff_config: { ...gate.diff_config, ignored_fields: NOISE_FIELDS } })
      await until(demo, 'matches once the noise is ignored', async () => {
        const c = await captures(key, savedAt)
        return c.items.some((r) => !r.has_diff) && c.items.some((r) => r.has_diff) ? c : undefined
      })
      expect((await fetch('http://127.0.0.1:8070/health')).status).toBe(200)
      expect((await fetch('http://127.0.0.1:8081/health/ready')).status).toBe(200)
      const config = await (await fetch('http://127.0.0.1:8070/config.js')).text()
      expect(config).toContain(API)
      // The hub hands out the key: a page whose name was rebound to 127.0.0.1 gets neither it nor the API.
      const rebound = { headers: { Host: 'rebound.evil.test:8070', authorization: `Bearer ${key}` } }
      expect((await fetch('http://127.0.0.1:8070/config.js', rebound)).status).toBe(421)
      expect((await fetch(`${API}/gates`, rebound)).status).toBe(421)
      expect((await fetch('http://localhost:8070/config.js')).status).toBe(200)

      // A second demo beside it says so in one line and leaves the first
      // alone, its data too, even when asked to --reset.
      const second = startDemo('--reset')
      expect(await second.exited).toBe(1)
      expect((await new Response(second.stderr).text()).trim()).toBe(
        'demo: port 8090 (api) is already in use; is a demo already running? Stop it first',
      )
      expect((await fetch('http://127.0.0.1:8081/health/ready')).status).toBe(200)
      expect(readFileSync(join(cwd, '.svc-demo/demo-key'), 'utf8').trim()).toBe(key)

      demo.kill('SIGINT')
      expect(await demo.exited).toBe(0)

      demo = startDemo()
      const again = await until(demo, 'the restarted demo', async () => {
        // The hub starts last, just before Ctrl-C is handled: the API alone may answer earlier.
        if ((await fetch('http://127.0.0.1:8070/health')).status !== 200) return undefined
        const c = await captures(key)
        return c.gateId === first.gateId && c.total >= first.total ? c : undefined
      })
      expect(again.gateId).toBe(first.gateId)
      // A gate found is left as its user saved it.
      expect((await demoGate(key)).diff_config.ignored_fields).toEqual(NOISE_FIELDS)
      demo.kill('SIGINT')
      expect(await demo.exited).toBe(0)

      demo = startDemo('--reset')
      const newKey = await until(demo, 'a new key', async () => {
        const k = readFileSync(join(cwd, '.svc-demo/demo-key'), 'utf8').trim()
        return k && k !== key ? k : undefined
      })
      const fresh = await until(demo, 'the fresh gate', async () => captures(newKey))
      expect(fresh.gateId).not.toBe(first.gateId)
      expect((await demoGate(newKey)).diff_config.ignored_fields).toEqual([])
    } finally {
      if (demo.exitCode === null) {
        demo.kill('SIGINT')
        await Promise.race([demo.exited, Bun.sleep(10_000)])
        if (demo.exitCode === null) demo.kill('SIGKILL')
      }
    }
  }, 300_000)
})
