/**
 * The proxy in API mode, as operators run it (`bun run src/main.ts proxy`
 * in its own process), under steady traffic while the API misbehaves in
 * turn: it accepts, then answers 500, 429 (Retry-After: 1), 413, 503
 * (Retry-After: 1), then accepts the connection and never answers. Through
 * all of it the clients get live's answers exactly, the proxy's memory
 * stays bounded, and every request it received is accounted for on
 * /metrics: reported + skipped = received, exactly (docs/proxy.md
 * "Nothing is lost silently", "Which answers count against the API").
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { SKIP_REASONS } from '../../../src/metrics/index.ts'
import { sumSamples } from '../../support/prometheus-text.ts'
import { freePorts, GZIP_BYTES, startUpstreamPair, waitFor, type TestUpstream } from '../../support/upstreams.ts'
import { problem, startScriptedApi, type ScriptedAnswer, type ScriptedApi } from './scripted-api.ts'

const MAIN = resolve(import.meta.dir, '../../../src/main.ts')
/** How long each behaviour of the API lasts, and the traffic's pace. */
const PHASE_MS = 3500
const MAX_REQUESTS_PER_SECOND = 200
const CLIENTS = 16
const MAX_RSS_BYTES = 300 * 1024 * 1024

const PHASES: ReadonlyArray<{ readonly name: string; readonly answer: () => ScriptedAnswer; readonly ms: number }> = [
  { name: '201', answer: () => new Response('{"data":{}}', { status: 201, headers: { 'content-type': 'application/json' } }), ms: 2000 },
  { name: '500', answer: () => problem(500, '/errors/internal'), ms: PHASE_MS },
  { name: '429', answer: () => problem(429, '/errors/rate-limited', {}, { 'retry-after': '1' }), ms: PHASE_MS },
  { name: '413', answer: () => problem(413, '/errors/payload-too-large'), ms: PHASE_MS },
  { name: '503', answer: () => problem(503, '/errors/unavailable', {}, { 'retry-after': '1' }), ms: PHASE_MS },
  { name: 'hang', answer: () => 'hang', ms: PHASE_MS },
]

let live: TestUpstream
let shadow: TestUpstream
let stopPair: () => Promise<void>
let api: ScriptedApi
let cwd: string

beforeAll(async () => {
  const pair = await startUpstreamPair()
  live = pair.live
  shadow = pair.shadow
  stopPair = pair.stop
  api = startScriptedApi({ liveUrl: live.url, shadowUrl: shadow.url })
  // An empty working directory, so that no developer's .env leaks in.
  cwd = mkdtempSync(join(tmpdir(), 'proxy-api-faults-'))
})

afterAll(async () => {
  api.stop()
  await stopPair()
  rmSync(cwd, { recursive: true, force: true })
})

/** What a client asks for, and exactly what live answers to it. */
interface Exchange {
  readonly target: string
  readonly status: number
  readonly body: Uint8Array
}

const encoder = new TextEncoder()
const LARGE_BYTES = 64 * 1024

/** A mix of answers: small JSON, a 404, gzip bytes, a 64 KiB body. */
function exchangeNumber(i: number): Exchange {
  if (i % 10 === 3) return { target: `/large?bytes=${LARGE_BYTES}`, status: 200, body: new Uint8Array(LARGE_BYTES).fill(97) }
  if (i % 10 === 5) return { target: '/gzip', status: 200, body: GZIP_BYTES }
  if (i % 10 === 7) return { target: '/status/404', status: 404, body: encoder.encode('{"status":404}') }
  return { target: `/items/${i}`, status: 200, body: encoder.encode(JSON.stringify({ path: `/items/${i}` })) }
}

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))
  if (line === undefined) throw new Error(`no VmRSS in /proc/${pid}/status`)
  return Number(/(\d+)\s*kB/.exec(line)![1]) * 1024
}

test(
  'an API that fails in every way: live answers stay exact, RSS stays bounded, received = reported + skipped',
  async () => {
    const [port, adminPort] = freePorts(2)
    const child = Bun.spawn(['bun', 'run', MAIN, 'proxy'], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        SVC_APP_API_URL: api.url,
        SVC_APP_GATE_ID: api.gateId,
        SVC_APP_API_KEY: 'proxy-key-0123456789',
        SVC_APP_API_TIMEOUT: '2s',
        SVC_APP_RETRY_DELAY: '100ms',
        SVC_APP_MAX_RETRIES: '3',
        SVC_APP_CB_FAILURE_THRESHOLD: '3',
        SVC_APP_CB_DELAY: '1s',
        SVC_APP_PORT: String(port),
        SVC_APP_ADMIN_PORT: String(adminPort),
        SVC_APP_LOG_FORMAT: 'json',
        SVC_APP_LOG_LEVEL: 'info',
      },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
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
    try {
      const listening = await waitFor(
        () => lines.map((line) => JSON.parse(line) as Record<string, string>).find((r) => r.msg === 'proxy listening'),
        15_000,
        'the proxy to listen',
      )
      const proxyUrl = `http://127.0.0.1:${new URL(listening.url!).port}`
      const adminUrl = `http://127.0.0.1:${new URL(listening.admin!).port}`

      const mismatches: string[] = []
      let sent = 0
      let maxRss = rssBytes(child.pid)
      const started = performance.now()
      const totalMs = PHASES.reduce((sum, phase) => sum + phase.ms, 0)
      const phaseAt = (elapsed: number) => {
        let end = 0
        for (const phase of PHASES) {
          end += phase.ms
          if (elapsed < end) return phase
        }
        return undefined
      }
      api.answer = () => (phaseAt(performance.now() - started) ?? PHASES.at(-1)!).answer()
      const rssWatch = setInterval(() => {
        maxRss = Math.max(maxRss, rssBytes(child.pid))
      }, 250)

      // Bounded in time (the phases) and in rate: each client waits for its turn on a shared pace.
      const client = async () => {
        for (;;) {
          const elapsed = performance.now() - started
          if (elapsed >= totalMs) return
          const i = sent++
          const due = (i * 1000) / MAX_REQUESTS_PER_SECOND
          if (due > elapsed) await Bun.sleep(due - elapsed)
          const expected = exchangeNumber(i)
          const response = await fetch(proxyUrl + expected.target, { decompress: false })
          const body = await response.bytes()
          if (response.status !== expected.status || Buffer.compare(body, expected.body) !== 0) {
            mismatches.push(`${expected.target}: ${response.status}, ${body.byteLength} bytes`)
          }
        }
      }
      try {
        await Promise.all(Array.from({ length: CLIENTS }, client))
      } finally {
        clearInterval(rssWatch)
      }
      expect(mismatches).toEqual([])
      expect(sent).toBeGreaterThan(1000)

      // Every report in flight ends within SVC_APP_API_TIMEOUT; then every request is accounted for.
      const counts = await waitFor(
        async () => {
          const text = await (await fetch(`${adminUrl}/metrics`)).text()
          if (sumSamples(text, 'svc_background_comparisons') !== 0) return undefined
          const received = sumSamples(text, 'http_server_request_duration_seconds_count')
          const reported = sumSamples(text, 'svc_captures_reported_total', { gate: api.gateId })
          const skipped = Object.fromEntries(
            SKIP_REASONS.map((reason) => [reason, sumSamples(text, 'svc_comparisons_skipped_total', { gate: api.gateId, reason })]),
          )
          const skippedTotal = Object.values(skipped).reduce((a, b) => a + b, 0)
          return received === sent ? { received, reported, skipped, skippedTotal } : undefined
        },
        10_000,
        'every report to end',
        100,
      )
      expect(counts.reported + counts.skippedTotal).toBe(counts.received)
      // Each behaviour left its mark: reports stored, captures refused, the breaker open.
      expect(counts.reported).toBeGreaterThan(0)
      expect(counts.skipped.body_too_large).toBeGreaterThan(0)
      expect(counts.skipped.breaker_open).toBeGreaterThan(0)
      expect(counts.skipped.report_failed).toBeGreaterThan(0)
      expect(maxRss).toBeLessThan(MAX_RSS_BYTES)
    } finally {
      child.kill('SIGKILL')
      await child.exited
    }
  },
  60_000,
)
