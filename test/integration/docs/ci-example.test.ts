/**
 * docs/ci.md's pipelines, as written: the plain-shell script is run
 * against a real API and real candidates; the GitHub Actions workflow is
 * read as YAML and its replay step checked against the script's.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parse, type TestSuites } from 'junit2json'
import { startTestApi, TEST_API_KEY, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { freePort } from '../../support/ports.ts'

const REPO = resolve(import.meta.dir, '../../..')
const DOC = readFileSync(join(REPO, 'docs/ci.md'), 'utf8')

/** The fenced block between the doc's markers. */
function shellExample(): string {
  const block = /<!-- ci-shell-example:start -->\n```bash\n([\s\S]*?)```\n<!-- ci-shell-example:end -->/.exec(DOC)
  if (!block) throw new Error('docs/ci.md has no ci-shell-example block')
  return block[1]!
}

const CANDIDATE = `
const differ = process.env.CANDIDATE_MODE === 'differ'
Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  fetch(request) {
    const path = new URL(request.url).pathname
    if (path === '/health') return new Response('ok')
    const n = Number(path.split('/').at(-1))
    return new Response(JSON.stringify({ id: n, price: differ ? n + 1 : n }), { headers: { 'content-type': 'application/json' } })
  },
})
`

describe('docs/ci.md pipelines', () => {
  let t: TestApi
  let dir: string
  let gate: string

  beforeAll(async () => {
    t = await startTestApi('postgres')
    dir = mkdtempSync(join(tmpdir(), 'ci-example-'))
    writeFileSync(join(dir, 'replay.sh'), shellExample())
    writeFileSync(join(dir, 'candidate.ts'), CANDIDATE)
    gate = ((await (await t.call('POST', '/gates', { name: 'staging', live_url: 'http://live', shadow_url: 'http://shadow' })).json()) as { data: { id: string } }).data.id
    // 120 GETs in the last day (the built-in min_requests is 100), live slow enough that latency passes.
    const now = Date.now()
    for (let i = 0; i < 120; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) => {
          const body = captureBody({ path: `/items/${i + j}`, live: { id: i + j, price: i + j }, created_at: new Date(now - 3_600_000 + (i + j) * 1000).toISOString() })
          ;(body.live_response as { latency_ms: number }).latency_ms = 1000
          return t.call('POST', `/gates/${gate}/requests`, body)
        }),
      )
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  async function runScript(env: Record<string, string>) {
    const port = freePort()
    const child = Bun.spawn(['bash', join(dir, 'replay.sh')], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        SVC_APP_API_URL: t.url,
        SVC_APP_API_KEY: TEST_API_KEY,
        GATE: gate,
        CANDIDATE_CMD: `bun ${join(dir, 'candidate.ts')}`,
        CANDIDATE_PORT: String(port),
        SVC_SHADOW_DIR: REPO,
        // Well within the test's bound: a candidate that cannot start is the script's exit 2, said, not a timeout.
        CANDIDATE_WAIT: '20',
        ...env,
      },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
    return { stdout, stderr, code, port }
  }

  test('the shell script passes a matching candidate, writes the JUnit report, and stops the candidate', async () => {
    const run = await runScript({})
    expect(run.stdout).toContain('the candidate passes')
    expect(run.code).toBe(0)
    const report = (await parse(readFileSync(join(dir, 'replay-verdict.xml'), 'utf8'))) as TestSuites
    expect(report.failures).toBe(0)
    expect(report.tests).toBeGreaterThanOrEqual(4)
    // The trap stopped the candidate: its port is free again.
    const again = Bun.serve({ hostname: '127.0.0.1', port: run.port, fetch: () => new Response() })
    again.stop(true)
  }, 60_000)

  test('the shell script fails a differing candidate with exit 1', async () => {
    rmSync(join(dir, 'replay-verdict.xml'), { force: true })
    const run = await runScript({ CANDIDATE_MODE: 'differ' })
    expect(run.stdout).toContain('the candidate FAILS')
    expect(run.code).toBe(1)
    expect(existsSync(join(dir, 'replay-verdict.xml'))).toBe(true)
  }, 60_000)

  test('the shell script stops with exit 2 when the candidate never comes up', async () => {
    const run = await runScript({ CANDIDATE_CMD: 'true', CANDIDATE_WAIT: '2' })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('the candidate did not come up')
  }, 30_000)

  test('the GitHub Actions workflow is valid YAML whose replay step asks what the script asks', () => {
    const yaml = /```yaml\n([\s\S]*?)```/.exec(DOC)![1]!
    const workflow = Bun.YAML.parse(yaml) as { jobs: { replay: { steps: Array<{ name?: string; run?: string; uses?: string; with?: Record<string, string> }> } } }
    const steps = workflow.jobs.replay.steps
    const replay = steps.find((step) => step.run?.startsWith('bun run replay --'))!
    for (const flag of ['--gate "$GATE"', '--target http://127.0.0.1:3001', '--window 24h', '--junit "$GITHUB_WORKSPACE/replay-verdict.xml"']) {
      expect(replay.run).toContain(flag)
    }
    expect(replay.run).not.toContain('\n--')
    expect(steps.at(-1)!.with!.report_paths).toBe('replay-verdict.xml')
  })
})
