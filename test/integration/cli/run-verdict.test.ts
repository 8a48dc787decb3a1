import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse, type TestSuites } from 'junit2json'
import { startTestApi, TEST_API_KEY, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

const MAIN = join(import.meta.dir, '../../../src/main.ts')

/** `bun run src/main.ts verdict ...` as a process of its own: its exit code, stdout and stderr. */
async function verdict(args: string[], env: Record<string, string>) {
  const child = Bun.spawn(['bun', 'run', MAIN, 'verdict', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    cwd: tmpdir(),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, stdout, stderr }
}

describe('bun run verdict against a real API', () => {
  let t: TestApi
  let env: Record<string, string>
  let gateId: string
  let dir: string

  beforeAll(async () => {
    t = await startTestApi('pglite')
    env = { SVC_APP_API_URL: t.url, SVC_APP_API_KEY: TEST_API_KEY }
    dir = mkdtempSync(join(tmpdir(), 'verdict-cli-'))
    const res = await t.call('POST', '/gates', { name: 'cli', live_url: 'http://live', shadow_url: 'http://shadow' })
    gateId = ((await res.json()) as { data: { id: string } }).data.id
    // 40 captures in the last minutes, 2 of them differing: a diff rate of 5 %.
    const now = Date.now()
    for (let i = 0; i < 40; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          t.call('POST', `/gates/${gateId}/requests`, captureBody({ path: `/items/${i + j}`, created_at: new Date(now - (i + j) * 1000).toISOString(), shadow: i + j < 2 ? { ok: false } : undefined })),
        ),
      )
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  test('pass: exit 0, the table of checks, and a JUnit report with one passing test case per check', async () => {
    const junit = join(dir, 'pass.xml')
    const run = await verdict(['--gate', gateId, '--window', '1h', '--min-requests', '40', '--max-diff-rate', '0.05', '--junit', junit], env)
    expect(run).toMatchObject({ code: 0, stderr: '' })
    expect(run.stdout).toContain('verdict: PASS')
    expect(run.stdout).toMatch(/diff_rate\s+gate\s+5\.00 %\s+<= 5\.00 %\s+pass/)
    const report = (await parse(readFileSync(junit, 'utf8'))) as TestSuites
    const cases = report.testsuite![0]!.testcase!
    expect(cases.map((c) => c.name)).toEqual(['requests (gate)', 'diff_rate (gate)', 'error_rate (gate)', 'latency_ratio (GET /items/{id})'])
    expect(cases.every((c) => c.failure === undefined)).toBe(true)
    expect(report.failures).toBe(0)
  })

  test('fail: exit 1, the failing check in the table and as a JUnit failure', async () => {
    const junit = join(dir, 'fail.xml')
    const run = await verdict(['--gate', gateId, '--min-requests', '40', '--junit', junit], env)
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('verdict: FAIL')
    expect(run.stdout).toMatch(/diff_rate\s+gate\s+5\.00 %\s+<= 1\.00 %\s+FAIL/)
    const report = (await parse(readFileSync(junit, 'utf8'))) as TestSuites
    const failed = report.testsuite![0]!.testcase!.filter((c) => c.failure !== undefined)
    expect(failed.map((c) => [c.name, c.failure![0]!.message])).toEqual([['diff_rate (gate)', 'diff_rate of gate is 5.00 %, required <= 1.00 %']])
  })

  test('inconclusive: exit 2 and why', async () => {
    const run = await verdict(['--gate', gateId], env)
    expect(run.code).toBe(2)
    expect(run.stdout).toContain('verdict: INCONCLUSIVE')
    expect(run.stdout).toContain('too few requests to conclude: 40 in the window, min_requests is 100')
  })

  test('noise: ignored by default and with --ignore-noise, counted with --no-ignore-noise', async () => {
    const res = await t.call('POST', '/gates', { name: 'cli-noise', live_url: 'http://live/noise', shadow_url: 'http://shadow/noise' })
    const noisy = ((await res.json()) as { data: { id: string } }).data.id
    // 20 captures whose only difference, request_id, also differs between live and its own repeat: noise.
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64')
    for (let i = 0; i < 20; i++) {
      const at = new Date(Date.now() - (i + 1) * 1000).toISOString()
      const live = { id: i, request_id: `live-${i}` }
      const body = {
        ...captureBody({ path: `/n/${i}`, created_at: at, live, shadow: { id: i, request_id: `shadow-${i}` } }),
        live_repeat_response: { status_code: 200, headers: { 'Content-Type': ['application/json'] }, body: b64({ id: i, request_id: `repeat-${i}` }), latency_ms: 9, created_at: at },
      }
      expect((await t.call('POST', `/gates/${noisy}/requests`, body)).status).toBe(201)
    }
    const junit = join(dir, 'noise.xml')
    for (const flags of [[], ['--ignore-noise']]) {
      const run = await verdict(['--gate', noisy, '--min-requests', '20', '--junit', junit, ...flags], env)
      expect(run).toMatchObject({ code: 0, stderr: '' })
      expect(run.stdout).toMatch(/diff_rate\s+gate\s+0\.00 %/)
      expect(run.stdout).toContain('noise ignored: 20 diffs touched only fields classified noise and are not in diff_rate')
    }
    const properties = ((await parse(readFileSync(junit, 'utf8'))) as TestSuites).testsuite![0]!.properties as unknown
    expect(properties).toContainEqual({ name: 'noise_ignored', value: 20 })
    const counted = await verdict(['--gate', noisy, '--min-requests', '20', '--no-ignore-noise'], env)
    expect(counted.code).toBe(1)
    expect(counted.stdout).toMatch(/diff_rate\s+gate\s+100\.00 %\s+<= 1\.00 %\s+FAIL/)
    expect(counted.stdout).toContain('noise counted: every diff is in diff_rate (--no-ignore-noise)')
  })

  test('flags win over the environment for the API address and key', async () => {
    const run = await verdict(['--gate', gateId, '--min-requests', '40', '--max-diff-rate', '0.05', '--api-url', t.url, '--api-key', TEST_API_KEY], {
      SVC_APP_API_URL: 'http://127.0.0.1:9',
      SVC_APP_API_KEY: 'wrong-key-0123456789',
    })
    expect(run.code).toBe(0)
  })

  test.each([
    ['an unknown gate', () => ['--gate', crypto.randomUUID()], () => env, /^verdict: the API answered GET \/gates\/[0-9a-f-]+\/verdict with 404 \(not-found\): no gate with id /],
    ['a wrong key', () => ['--gate', gateId], () => ({ ...env, SVC_APP_API_KEY: 'wrong-key-0123456789' }), /^verdict: the API answered GET .* with 401 \(unauthorized\)/],
    ['a bad threshold', () => ['--gate', gateId, '--max-diff-rate', '5'], () => env, /^verdict: --max-diff-rate: "5" must be a number from 0 to 1\n$/],
    ['no API address', () => ['--gate', gateId], () => ({}), /^verdict: SVC_APP_API_URL: is required \(or --api-url\)/],
    ['a JUnit file that cannot be written', () => ['--gate', gateId, '--junit', '/nonexistent-dir/r.xml'], () => env, /^verdict: cannot write the JUnit report to \/nonexistent-dir\/r\.xml: ENOENT/],
  ] as const)('%s: exit 2 with one line on stderr', async (_name, args, environment, line) => {
    const run = await verdict([...args()], environment())
    expect(run.code).toBe(2)
    expect(run.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1)
    expect(run.stderr).toMatch(line)
    expect(run.stderr).not.toContain('wrong-key')
  })

  test('an API that does not answer: exit 2 with one line, after a few retries', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
    const url = `http://127.0.0.1:${closed.port}`
    await closed.stop(true)
    // With a password in the URL, as a CI's secret may hold: never printed.
    const run = await verdict(['--gate', gateId], { ...env, SVC_APP_API_URL: url.replace('http://', 'http://ci:s3cret@') })
    expect(run.code).toBe(2)
    expect(run.stderr).toStartWith(`verdict: cannot reach the API at ${url.replace('http://', 'http://ci:***@')}`)
    expect(run.stderr).not.toContain('s3cret')
  }, 30_000)
})
