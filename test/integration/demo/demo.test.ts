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

async function captures(key: string): Promise<{ gateId: string; items: Summary[]; total: number }> {
  const auth = { authorization: `Bearer ${key}` }
  const gates = (await (await fetch(`${API}/gates`, { headers: auth })).json()) as { data: Array<{ id: string }> }
  const gateId = gates.data[0]!.id
  const page = (await (await fetch(`${API}/gates/${gateId}/requests?limit=100`, { headers: auth })).json()) as {
    data: Summary[]
    pagination: { total: number }
  }
  return { gateId, items: page.data, total: page.pagination.total }
}

afterAll(() => rmSync(cwd, { recursive: true, force: true }))

describe('bun run demo', () => {
  test('shows matches, diffs and errors, keeps its data across restarts, and --reset wipes it', async () => {
    let demo = startDemo()
    try {
      const key = await until(demo, 'the demo key', async () => readFileSync(join(cwd, '.svc-demo/demo-key'), 'utf8').trim() || undefined)
      const first = await until(demo, 'matches, diffs and a shadow 500', async () => {
        const c = await captures(key)
        const diffs = c.items.filter((r) => r.has_diff).length
        const matches = c.items.filter((r) => !r.has_diff).length
        const errors = c.items.filter((r) => r.shadow_response.status_code >= 500).length
        return diffs > 0 && matches > 0 && errors > 0 ? c : undefined
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
      demo.kill('SIGINT')
      expect(await demo.exited).toBe(0)

      demo = startDemo('--reset')
      const newKey = await until(demo, 'a new key', async () => {
        const k = readFileSync(join(cwd, '.svc-demo/demo-key'), 'utf8').trim()
        return k && k !== key ? k : undefined
      })
      const fresh = await until(demo, 'the fresh gate', async () => captures(newKey))
      expect(fresh.gateId).not.toBe(first.gateId)
    } finally {
      if (demo.exitCode === null) {
        demo.kill('SIGINT')
        await Promise.race([demo.exited, Bun.sleep(10_000)])
        if (demo.exitCode === null) demo.kill('SIGKILL')
      }
    }
  }, 180_000)
})
