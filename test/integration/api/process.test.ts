import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { createTestDatabase } from '../../support/database.ts'
import { freePort } from '../../support/ports.ts'

const MAIN = join(import.meta.dir, '../../../src/main.ts')
const KEY = 'process-test-key-0123'

function spawnApi(env: Record<string, string>) {
  return Bun.spawn(['bun', 'run', MAIN, 'api'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    cwd: import.meta.dir,
    stdout: 'pipe',
    stderr: 'pipe',
  })
}

async function waitReady(url: string, proc: { exitCode: number | null }): Promise<void> {
  for (let i = 0; i < 200 && proc.exitCode === null; i++) {
    const ok = await fetch(url + '/health/ready').then((r) => r.ok, () => false)
    if (ok) return
    await Bun.sleep(100)
  }
  throw new Error(proc.exitCode === null ? 'the API did not become ready within 20 s' : `the API exited (code ${proc.exitCode}) before it was ready`)
}

describe('bun run api as a process', () => {
  test.each([
    [{ SVC_APP_API_KEY: 'short' }, 'SVC_APP_API_KEY: the value (5 characters, not shown) must be at least 16 characters'],
    [{ SVC_APP_RETENTION: '0h' }, 'SVC_APP_RETENTION: "0h" must be a positive duration'],
    [{ SVC_APP_CORS_ORIGINS: '*' }, 'SVC_APP_CORS_ORIGINS: "*" must be a list of origins without the wildcard "*"'],
  ])('an invalid %p exits 1 with one line on stderr', async (bad, line) => {
    const proc = spawnApi({ SVC_APP_DATABASE_URL: 'pglite://memory', SVC_APP_API_KEY: KEY, ...bad })
    expect(await proc.exited).toBe(1)
    expect((await new Response(proc.stderr).text()).trim()).toBe(line)
    expect((await new Response(proc.stdout).text()).trim()).toBe('')
  })

  test('a port in use by another process exits 1 with one line, and nothing shares it', async () => {
    // Another process holding the port with SO_REUSEPORT, as a second `bun run api` did.
    const other = Bun.spawn(['bun', '-e', "const s = Bun.serve({ hostname: '0.0.0.0', port: 0, development: false, fetch: () => new Response('other') }); console.log(s.port)"], {
      stdout: 'pipe',
    })
    try {
      const reader = other.stdout.getReader()
      const port = Number(new TextDecoder().decode((await reader.read()).value).trim())
      const proc = spawnApi({ SVC_APP_DATABASE_URL: 'pglite://memory', SVC_APP_API_KEY: KEY, SVC_APP_PORT: String(port) })
      expect(await proc.exited).toBe(1)
      expect((await new Response(proc.stderr).text()).trim()).toBe(`SVC_APP_PORT: "${port}" is already in use by another process`)
    } finally {
      other.kill()
      await other.exited
    }
  })

  test('SIGTERM: readiness drops, the in-flight request finishes, exit 0', async () => {
    const database = await createTestDatabase('postgres')
    const port = freePort()
    const proc = spawnApi({ SVC_APP_DATABASE_URL: database.url, SVC_APP_API_KEY: KEY, SVC_APP_PORT: String(port), SVC_APP_LOG_FORMAT: 'json' })
    const url = `http://127.0.0.1:${port}`
    try {
      await waitReady(url, proc)
      // A request whose body is still arriving when the signal comes.
      let finish!: () => void
      const gate = new Promise<void>((resolve) => (finish = resolve))
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode('{"name":"in-flight",'))
          await gate
          controller.enqueue(new TextEncoder().encode('"live_url":"http://a","shadow_url":"http://b"}'))
          controller.close()
        },
      })
      const inFlight = fetch(url + '/gates', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body,
      })
      await Bun.sleep(200)
      proc.kill('SIGTERM')
      await Bun.sleep(200)
      finish()
      const res = await inFlight
      expect(res.status).toBe(201)
      expect(await proc.exited).toBe(0)
      const logs = await new Response(proc.stdout).text()
      expect(logs).toContain('"msg":"api stopped"')
      expect(logs).not.toContain(KEY)
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL')
      await database.drop()
    }
  })
})
