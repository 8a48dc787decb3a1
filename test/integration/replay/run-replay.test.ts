import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse, type TestSuites } from 'junit2json'
import { startTestApi, TEST_API_KEY, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

const MAIN = join(import.meta.dir, '../../../src/main.ts')
const JSON_HEADERS = { 'content-type': 'application/json' }
/**
 * Thresholds for these small runs: 50 captures conclude, and latency is not
 * judged (a candidate on a busy test machine is slower than the 12 ms the
 * stored live took, whatever it does).
 */
const LOOSE = ['--min-requests', '50', '--max-latency-ratio', '1000']

/** `bun run src/main.ts replay ...` as a process of its own. */
async function replay(args: string[], env: Record<string, string>) {
  const child = Bun.spawn(['bun', 'run', MAIN, 'replay', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    cwd: tmpdir(),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, stdout, stderr }
}

/** What a candidate server received: method, path and query, and its headers. */
interface Received {
  method: string
  target: string
  headers: Record<string, string>
  at: number
}

/** A candidate on 127.0.0.1 answering `/items/{n}` with `price(n)`, recording every request. */
function candidate(price: (n: number) => number) {
  const received: Received[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const url = new URL(request.url)
      received.push({ method: request.method, target: url.pathname + url.search, headers: Object.fromEntries(request.headers), at: performance.now() })
      const n = Number(url.pathname.split('/').at(-1))
      if (url.pathname.startsWith('/items/')) return new Response(JSON.stringify({ id: n, price: price(n) }), { headers: JSON_HEADERS })
      if (url.pathname === '/me') return new Response(JSON.stringify({ user: 'a' }), { headers: JSON_HEADERS })
      return new Response(JSON.stringify({ ok: true }), { headers: JSON_HEADERS })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, received, stop: () => server.stop(true) }
}

describe('bun run replay against real candidates', () => {
  let t: TestApi
  let env: Record<string, string>
  let sourceId: string
  let dir: string
  const candidates: Array<ReturnType<typeof candidate>> = []

  const json = async <T>(path: string) => ((await (await t.call('GET', path)).json()) as { data: T }).data

  beforeAll(async () => {
    t = await startTestApi('postgres')
    env = { SVC_APP_API_URL: t.url, SVC_APP_API_KEY: TEST_API_KEY }
    dir = mkdtempSync(join(tmpdir(), 'replay-'))
    const res = await t.call('POST', '/gates', { name: 'shop', live_url: 'http://live.shop', shadow_url: 'http://shadow.shop' })
    sourceId = ((await res.json()) as { data: { id: string } }).data.id
    await t.call('PATCH', `/gates/${sourceId}`, { redacted_fields: ['body.password'] })
    // 90 stored captures: 60 GET and 10 HEAD of /items/{n}, 10 POST /orders, 5 GET /me with a
    // credential (redacted when stored), 5 POST /login with a password (redacted too).
    const base = Date.now() - 10 * 60_000
    const specs = [
      ...Array.from({ length: 60 }, (_, n) => ({ path: `/items/${n}`, raw_query: 'currency=eur', live: { id: n, price: n * 10 } })),
      ...Array.from({ length: 10 }, (_, n) => ({ method: 'HEAD', path: `/items/${n}`, live: '' })),
      ...Array.from({ length: 10 }, () => ({ method: 'POST', path: '/orders', requestBody: { sku: 1 } })),
      ...Array.from({ length: 5 }, () => ({ path: '/me', requestHeaders: { Authorization: ['Bearer stored-secret'] }, live: { user: 'a' } })),
      ...Array.from({ length: 5 }, () => ({ method: 'POST', path: '/login', requestBody: { user: 'a', password: 'hunter2' } })),
    ]
    for (let i = 0; i < specs.length; i += 15) {
      await Promise.all(
        specs.slice(i, i + 15).map((spec, j) =>
          t.call('POST', `/gates/${sourceId}/requests`, captureBody({ ...spec, created_at: new Date(base + (i + j) * 100).toISOString() })),
        ),
      )
    }
  }, DATABASE_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    for (const c of candidates) c.stop()
    await t.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  function started(price: (n: number) => number) {
    const c = candidate(price)
    candidates.push(c)
    return c
  }

  test('a matching candidate passes: every capture accounted for, unsafe and redacted ones skipped and counted', async () => {
    const c = started((n) => n * 10)
    const junit = join(dir, 'match.xml')
    const run = await replay(['--gate', sourceId, '--target', c.url, ...LOOSE, '--junit', junit], env)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('replay: 90 captures: 70 replayed, 20 skipped, 0 failed')
    expect(run.stdout).toContain('  replayed: 0 with a difference, 0 where the candidate failed')
    expect(run.stdout).toContain('  skipped: method 15, redacted 5')
    expect(run.stdout).toContain('verdict: PASS')
    // Only safe methods reached the candidate, with the query and the shadow marker, never a redacted value.
    expect(new Set(c.received.map((r) => r.method))).toEqual(new Set(['GET', 'HEAD']))
    expect(c.received).toHaveLength(70)
    expect(c.received.find((r) => r.target === '/items/7?currency=eur')?.headers['x-svc-mode']).toBe('shadow')
    expect(JSON.stringify(c.received)).not.toContain('[REDACTED]')
    const report = (await parse(readFileSync(junit, 'utf8'))) as TestSuites
    expect(report.failures).toBe(0)
    expect(report.testsuite![0]!.name).toContain('replay: shop -> ')
  })

  test('a differing candidate fails, with the signature of its difference on the replay gate', async () => {
    const c = started((n) => (n % 2 === 0 ? n * 10 : n * 10 + 1))
    const run = await replay(['--gate', sourceId, '--target', c.url, ...LOOSE], env)
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('replay: 90 captures: 70 replayed, 20 skipped, 0 failed')
    expect(run.stdout).toContain('  replayed: 30 with a difference, 0 where the candidate failed')
    expect(run.stdout).toMatch(/diff_rate\s+gate\s+42\.86 %\s+<= 1\.00 %\s+FAIL/)
    const gate = (await json<Array<{ id: string; name: string; live_url: string; shadow_url: string; redacted_fields: string[] }>>(`/gates?name=${encodeURIComponent(`replay: shop -> ${c.url}`)}`))[0]!
    expect(gate).toMatchObject({ live_url: 'http://live.shop', shadow_url: c.url, redacted_fields: ['body.password'] })
    const signatures = await json<Array<{ kind: string; method: string; template: string; ops: unknown; count: number }>>(`/gates/${gate.id}/signatures`)
    expect(signatures.map(({ kind, method, template, ops, count }) => ({ kind, method, template, ops, count }))).toEqual([
      { kind: 'diff', method: 'GET', template: '/items/{id}', ops: [{ op: 'replace', path: '/body/price' }], count: 30 },
    ])
  })

  test("the replay gate is reused by the next run against the same candidate, whose verdict counts none of the earlier run's captures", async () => {
    let differ = true
    const c = started((n) => (differ ? n * 10 + 1 : n * 10))
    const first = await replay(['--gate', sourceId, '--target', c.url, ...LOOSE], env)
    expect(first.code).toBe(1)
    differ = false
    // Verdicts count whole minutes: the second run waits for one without the first run's captures.
    const second = await replay(['--gate', sourceId, '--target', c.url, ...LOOSE], env)
    const gateOf = (out: string) => /results on gate ([0-9a-f-]{36})/.exec(out)?.[1]
    expect(gateOf(first.stdout)).toBeDefined()
    expect(gateOf(second.stdout)).toBe(gateOf(first.stdout))
    expect(second.stdout).toContain('verdict: PASS')
    expect(second.code).toBe(0)
  }, 120_000)

  test('--header puts a credential back: the captures it covers are replayed, the value never stored', async () => {
    const c = started((n) => n * 10)
    const run = await replay(['--gate', sourceId, '--target', c.url, ...LOOSE, '--header', 'Authorization: Bearer replay-token'], env)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('replay: 90 captures: 75 replayed, 15 skipped, 0 failed')
    expect(c.received.filter((r) => r.target === '/me').map((r) => r.headers.authorization)).toEqual(Array(5).fill('Bearer replay-token'))
    const gate = /results on gate ([0-9a-f-]{36})/.exec(run.stdout)![1]!
    const exported = await (await t.call('GET', `/gates/${gate}/requests/export`)).text()
    expect(exported).not.toContain('replay-token')
    expect(exported).not.toContain(Buffer.from('replay-token').toString('base64').slice(0, 12))
  })

  test('--method and --allow-redacted widen what is sent; the redacted values are left out', async () => {
    const c = started((n) => n * 10)
    const run = await replay(['--gate', sourceId, '--target', c.url, ...LOOSE, '--method', 'get,head,post', '--allow-redacted'], env)
    expect(run.stdout).toContain('replay: 90 captures: 90 replayed, 0 skipped, 0 failed')
    const login = c.received.filter((r) => r.target === '/login')
    expect(login).toHaveLength(5)
    expect(c.received.filter((r) => r.target === '/me').every((r) => r.headers.authorization === undefined)).toBe(true)
  })

  test('--rate holds: requests reach the candidate no faster than asked', async () => {
    const c = started((n) => n * 10)
    const run = await replay(['--gate', sourceId, '--target', c.url, ...LOOSE, '--rate', '40', '--concurrency', '8', '--limit', '60'], env)
    expect(run.stdout).toContain('replay: 60 captures:')
    const times = c.received.map((r) => r.at).sort((a, b) => a - b)
    // The first 60 stored are GETs: at 40/s the first and the last are at least 59/40 s apart.
    expect(times.length).toBe(60)
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual((59 / 40) * 1000 * 0.9)
  })

  test('on a terminal, a progress bar redrawn in place: done/total, rate, diffs, ETA', async () => {
    const script = Bun.which('script')
    if (script === null) throw new Error('this test needs script(1) from util-linux (Debian: bsdutils) to run the replay on a pseudo-terminal')
    const c = started((n) => n * 10)
    const command = ['bun', 'run', MAIN, 'replay', '--gate', sourceId, '--target', c.url, ...LOOSE, '--limit', '60', '--rate', '40']
    const child = Bun.spawn([script, '-qfec', command.join(' '), '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'xterm', ...env },
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited])
    expect(code).toBe(0)
    const frames = out.split('\r').filter((frame) => frame.startsWith('['))
    // Redrawn about ten times a second over 1.5 s, each frame erasing what the last one left.
    expect(frames.length).toBeGreaterThan(3)
    for (const frame of frames) expect(frame).toMatch(/^\[[#-]{24}\] \d+\/60  \d+ req\/s  diffs 0  ETA (\?|\d+s)\x1b\[K/)
    expect(frames.at(-1)).toMatch(/^\[#{24}\] 60\/60 /)
    expect(out).toContain('replay: 60 captures: 60 replayed, 0 skipped, 0 failed')
  }, 30_000)

  test('when not on a terminal, a plain line every --progress-interval', async () => {
    const c = started((n) => n * 10)
    const run = await replay(['--gate', sourceId, '--target', c.url, ...LOOSE, '--limit', '60', '--rate', '40', '--progress-interval', '300ms'], env)
    expect(run.stdout).not.toContain('\r')
    const lines = run.stdout.split('\n').filter((line) => /^replay: \d+\/60 done, \d+ req\/s, \d+ diffs, ETA /.test(line))
    expect(lines.length).toBeGreaterThan(2)
    expect(lines.at(-1)).toStartWith('replay: 60/60 done')
  })

  test('a candidate that refuses connections is recorded as failed shadows, and the error rate fails', async () => {
    const c = started(() => 0)
    c.stop()
    const run = await replay(['--gate', sourceId, '--target', c.url, ...LOOSE, '--limit', '60'], env)
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('  replayed: 60 with a difference, 60 where the candidate failed')
    expect(run.stdout).toMatch(/error_rate\s+gate\s+100\.00 %\s+<= 1\.00 %\s+FAIL/)
  })

  test('an unknown source gate or a bad flag: exit 2 with one line', async () => {
    const unknown = await replay(['--gate', crypto.randomUUID(), '--target', 'http://127.0.0.1:9'], env)
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^replay: the API answered GET \/gates\/[0-9a-f-]+ with 404 \(not-found\)/)
    const bad = await replay(['--gate', sourceId, '--target', 'ftp://x'], env)
    expect(bad).toMatchObject({ code: 2, stdout: '' })
    expect(bad.stderr).toBe('replay: --target: "ftp://x" must be an http:// or https:// URL without a query or fragment\n')
    const header = await replay(['--gate', sourceId, '--target', 'http://127.0.0.1:9', '--header', 'no colon secret'], env)
    expect(header.stderr).not.toContain('secret')
  })
})
