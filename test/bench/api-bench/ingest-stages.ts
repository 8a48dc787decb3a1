/**
 * Where an ingested capture's time goes, stage by stage, for investigating
 * the ingest figures of api.bench.ts. Run: `bun run test/bench/api-bench/ingest-stages.ts`
 * (add `--db` to include the store's insert against a fresh PostgreSQL
 * database: INGEST_STAGES_SECONDS per concurrency, default 6).
 *
 * In-process, the bench's own capture bodies, CPU time (not wall time, which
 * other work on a shared machine inflates):
 * - the pieces: JSON.parse, arktype validation of the body, base64
 *   decoding, processCapture (redaction + diff), one access-log record;
 * - the whole HTTP edge + Elysia app with the stores stubbed out (no
 *   database), at log level info and warn: the API's CPU cost per capture
 *   apart from the database and the socket;
 * - with `--db`: RequestStore.insert (and the gate settings read the route
 *   does first) at 8 and 32 concurrent callers, as the API calls them.
 */
import { closeSync, openSync, writeSync } from 'node:fs'
import { createApiApp } from '../../../src/api/create-api-app.ts'
import type { ApiContext } from '../../../src/api/api-context.ts'
import { GateSettingsCache } from '../../../src/api/gate-settings-cache.ts'
import { captureRequestLimit } from '../../../src/api/capture-limits.ts'
import { createHttpHandler } from '../../../src/api/http-handler.ts'
import { createRequestBody } from '../../../src/api/schemas/request-schemas.ts'
import { loadApiConfig } from '../../../src/config/api-config.ts'
import { processCapture, type DiffConfig } from '../../../src/diff/index.ts'
import { createLogger, type LogLevel } from '../../../src/log/index.ts'
import { createComparisonMetrics, Registry } from '../../../src/metrics/index.ts'
import { createGateStore } from '../../../src/store/gate-store.ts'
import { createRequestStore } from '../../../src/store/request-store.ts'
import { createTestDatabase } from '../../support/database.ts'
import { cpuSeconds as processCpuSeconds } from './api-process.ts'
import { makeCaptureBodies } from './capture-bodies.ts'
import { textTable } from './text-table.ts'

const GATE_ID = '3f1b6c1e-8d0a-4c53-9a57-5a3f7e0d2b10'
const DIFF_CONFIG: DiffConfig = { ignored_fields: ['body.meta.request_id'], included_fields: [], float_tolerance: 0, sort_arrays: false }
const REDACTED = ['body.data.#.email']
const API_KEY = 'stage-key-0123456789abcdef'

/** CPU time of this process in µs (user + system): unlike wall time, not inflated by other work on the machine. */
function cpuMicros(): number {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}

/** Best mean CPU µs per call over several rounds. */
async function perCall(fn: (i: number) => unknown, rounds = 7, roundMs = 300): Promise<number> {
  let best = Infinity
  let i = 0
  for (let r = 0; r < rounds; r++) {
    const started = performance.now()
    const cpu = cpuMicros()
    let calls = 0
    while (performance.now() - started < roundMs) {
      const result = fn(i++)
      if (result instanceof Promise) await result
      calls++
    }
    best = Math.min(best, (cpuMicros() - cpu) / calls)
  }
  return best
}

function appHandler(level: LogLevel, logFd: number) {
  const config = loadApiConfig({
    SVC_APP_DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
    SVC_APP_API_KEY: API_KEY,
    SVC_APP_RATE_LIMIT: '100000000',
  })
  const logger = createLogger({ level, format: 'json', write: (line) => void writeSync(logFd, `${line}\n`) })
  const registry = new Registry()
  const summary = (id: string) => ({
    id,
    method: 'GET',
    path: '/api/customers/1',
    created_at: new Date().toISOString(),
    live_response: { status_code: 200, latency_ms: 12 },
    shadow_response: { status_code: 200, latency_ms: 15 },
    has_diff: false,
  })
  // Only what createRequest touches; the rest is never called here.
  const gates = { settings: async () => ({ id: GATE_ID, diff_config: DIFF_CONFIG, redacted_fields: REDACTED, retention: '', endpoints: [] }) }
  const ctx = {
    config,
    logger,
    db: {} as ApiContext['db'],
    gates,
    gateSettings: new GateSettingsCache(gates),
    requests: { insert: async (_gate: string, capture: { id: string }) => ({ summary: summary(capture.id), created: true }) },
    stats: {},
    registry,
    comparisons: createComparisonMetrics(registry),
    lifecycle: { accepting: true },
  } as unknown as ApiContext
  const app = createApiApp(ctx)
  const fetch = createHttpHandler({ handle: (r) => app.handle(r), logger, bodyLimit: () => captureRequestLimit(config.maxBodyBytes), hstsMaxAgeSeconds: undefined, observe: () => {} })
  const server = { requestIP: () => ({ address: '127.0.0.1', family: 'IPv4', port: 1 }) } as unknown as Parameters<typeof fetch>[1]
  return { fetch, server }
}

async function main(): Promise<void> {
  const { bodies } = makeCaptureBodies({ count: 256, diffShare: 0.2, bytes: 2048 })
  const parsed = bodies.map((b) => JSON.parse(b) as typeof createRequestBody.infer)
  const devNull = openSync('/dev/null', 'w')
  const rows: string[][] = [['stage', 'CPU µs per capture']]
  const add = (name: string, us: number) => rows.push([name, us.toFixed(1)])

  add('JSON.parse of the request body (~5.9 KB)', await perCall((i) => JSON.parse(bodies[i % bodies.length]!)))
  add('arktype validation of createRequest body', await perCall((i) => createRequestBody(parsed[i % parsed.length]!)))
  add('base64 decode of 3 bodies', await perCall((i) => {
    const b = parsed[i % parsed.length]!
    return [Buffer.from(b.body, 'base64'), Buffer.from(b.live_response.body, 'base64'), Buffer.from(b.shadow_response.body, 'base64')]
  }))
  const options = { diff: DIFF_CONFIG, redactedFields: REDACTED }
  add('processCapture (redaction + diff)', await perCall((i) => {
    const b = parsed[i % parsed.length]!
    return processCapture({
      request: { headers: b.headers, body: Buffer.from(b.body, 'base64') },
      live: { status: 200, headers: b.live_response.headers, body: Buffer.from(b.live_response.body, 'base64') },
      shadow: { status: 200, headers: b.shadow_response.headers, body: Buffer.from(b.shadow_response.body, 'base64') },
    }, options)
  }))
  const logger = createLogger({ level: 'info', format: 'json', write: (line) => void writeSync(devNull, `${line}\n`) })
  add('one access-log record (json, to /dev/null)', await perCall((i) => logger.info('request', {
    'request.id': '0f3e1bf3-18c6-4071-b41a-6f63f682789c',
    'request.method': 'POST',
    'request.path': `/gates/${GATE_ID}/requests`,
    'http.route': '/gates/:gate_id/requests',
    'response.status': 201,
    'response.latency': i / 1000,
  })))

  for (const level of ['info', 'warn'] as const) {
    const { fetch, server } = appHandler(level, devNull)
    const url = `http://127.0.0.1/gates/${GATE_ID}/requests`
    // Content-Length as a real client sends it (without it the edge reads the body as a stream).
    const requestHeaders = bodies.map((body) => ({
      authorization: `Bearer ${API_KEY}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    }))
    const us = await perCall(async (i) => {
      const n = i % bodies.length
      const response = await fetch(new Request(url, { method: 'POST', headers: requestHeaders[n], body: bodies[n] }), server)
      if (response.status !== 201) throw new Error(`stubbed createRequest answered ${response.status}: ${await response.text()}`)
      return response.arrayBuffer()
    })
    add(`whole createRequest without database (edge + Elysia + diff), log ${level}`, us)
  }
  closeSync(devNull)
  for (const line of textTable(rows, new Set([1]))) console.log(line)
  console.log('CPU time of this process (user + system), best mean of 7 rounds; all of it runs on the API\'s one JS thread.')

  if (process.argv.includes('--db')) await storeInsert(parsed)
}

async function storeInsert(parsed: Array<typeof createRequestBody.infer>): Promise<void> {
  const seconds = Number(process.env.INGEST_STAGES_SECONDS ?? 6)
  const database = await createTestDatabase('postgres', { pool: { max: 25 } })
  try {
    const gates = createGateStore(database.db.sql)
    const requests = createRequestStore(database.db.sql)
    const gate = await gates.create({ name: 'stages', live_url: 'http://127.0.0.1:9/a', shadow_url: 'http://127.0.0.1:9/b' })
    const rows: string[][] = [['store calls (settings + insert), concurrency', 'captures/s', 'client CPU ms/capture', 'PostgreSQL CPU ms/capture']]
    const backendCpu = async () => {
      const pids = await database.db.sql<{ pid: number }[]>`
        SELECT pid FROM pg_stat_activity WHERE datname = current_database()`
      return new Map(pids.map((p) => [p.pid, processCpuSeconds(p.pid)]))
    }
    for (const concurrency of [8, 32]) {
      let done = 0
      const pg0 = await backendCpu()
      const cpu0 = cpuMicros()
      const end = performance.now() + seconds * 1000
      let n = 0
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          const b = parsed[n++ % parsed.length]!
          await gates.settings(gate.id)
          await requests.insert(gate.id, {
            id: crypto.randomUUID(),
            method: b.method,
            path: b.path,
            raw_query: b.raw_query ?? '',
            headers: b.headers,
            body: Buffer.from(b.body, 'base64'),
            created_at: b.created_at,
            live_response: { id: crypto.randomUUID(), status_code: 200, headers: b.live_response.headers, body: Buffer.from(b.live_response.body, 'base64'), latency_ms: 12, created_at: b.created_at },
            shadow_response: { id: crypto.randomUUID(), status_code: 200, headers: b.shadow_response.headers, body: Buffer.from(b.shadow_response.body, 'base64'), latency_ms: 15, created_at: b.created_at },
            has_diff: false,
            diff: [],
          })
          done++
        }
      }))
      const clientMs = (cpuMicros() - cpu0) / 1000 / done
      let pgSeconds = 0
      for (const [pid, cpu] of await backendCpu()) pgSeconds += cpu - (pg0.get(pid) ?? 0)
      rows.push([String(concurrency), (done / seconds).toFixed(0), clientMs.toFixed(3), ((pgSeconds * 1000) / done).toFixed(3)])
    }
    for (const line of textTable(rows, new Set([1, 2, 3]))) console.log(line)
  } finally {
    await database.drop()
  }
}

await main()
