/**
 * Where an ingested capture's time goes, stage by stage, for investigating
 * the ingest figures of api.bench.ts. Run: `bun run test/bench/api-bench/ingest-stages.ts`
 * (add `--db` to include the store's insert against a fresh PostgreSQL
 * database: INGEST_STAGES_SECONDS per concurrency, default 6).
 *
 * `--root <dir>` measures another checkout's src/ (with its own
 * node_modules) on this checkout's capture bodies, and `--json` prints the
 * figures as one JSON object: what ingest-stages-ab.ts runs against two
 * checkouts in turns. A stage the checkout lacks is left out.
 *
 * In-process, the bench's own capture bodies, CPU time (not wall time, which
 * other work on a shared machine inflates):
 * - the pieces: JSON.parse, arktype validation of the body, base64
 *   decoding, processCapture (redaction + diff), the store's work before
 *   its statement (captureInsight, captureDigest), the response's schema
 *   check, one access-log record;
 * - the whole HTTP edge + Elysia app with the database stubbed out (the
 *   store's insert does only captureInsight and captureDigest), at log
 *   level info and warn: the API's CPU cost per capture apart from the
 *   statement, the database and the socket;
 * - with `--db` (`--db-only`: that alone): RequestStore.insert of the
 *   processed captures at 8 and 32 concurrent callers, as the API calls it
 *   (the gate's settings come from its cache): this process's CPU (the
 *   store's JavaScript and postgres.js) and PostgreSQL's.
 */
import { closeSync, openSync, writeSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { ApiContext } from '../../../src/api/api-context.ts'
import type { DiffConfig } from '../../../src/diff/index.ts'
import type { LogLevel } from '../../../src/log/index.ts'
import type { CaptureInput } from '../../../src/store/rows.ts'
import { cpuSeconds as processCpuSeconds } from './api-process.ts'
import { makeCaptureBodies } from './capture-bodies.ts'
import { textTable } from './text-table.ts'

const GATE_ID = '3f1b6c1e-8d0a-4c53-9a57-5a3f7e0d2b10'
const DIFF_CONFIG: DiffConfig = { ignored_fields: ['body.meta.request_id'], included_fields: [], float_tolerance: 0, sort_arrays: false }
const REDACTED = ['body.data.#.email']
const API_KEY = 'stage-key-0123456789abcdef'

const argv = process.argv.slice(2)
const rootArg = argv.indexOf('--root')
/** The checkout whose src/ is measured. */
const ROOT = rootArg >= 0 ? resolve(argv[rootArg + 1]!) : resolve(import.meta.dir, '../../..')
const JSON_OUTPUT = argv.includes('--json')

/** A module of the measured checkout, typed as this checkout's. */
function load<T>(path: string): Promise<T> {
  return import(join(ROOT, path)) as Promise<T>
}

/** A module the measured checkout may not have (one added since). */
async function loadOptional<T>(path: string): Promise<T | undefined> {
  try {
    return await load<T>(path)
  } catch {
    return undefined
  }
}

const api = {
  app: await load<typeof import('../../../src/api/create-api-app.ts')>('src/api/create-api-app.ts'),
  settings: await load<typeof import('../../../src/api/gate-settings-cache.ts')>('src/api/gate-settings-cache.ts'),
  backlog: await load<typeof import('../../../src/api/ingest-backlog.ts')>('src/api/ingest-backlog.ts'),
  limits: await load<typeof import('../../../src/api/capture-limits.ts')>('src/api/capture-limits.ts'),
  auth: await load<typeof import('../../../src/api/plugins/auth.ts')>('src/api/plugins/auth.ts'),
  handler: await load<typeof import('../../../src/api/http-handler.ts')>('src/api/http-handler.ts'),
  schemas: await load<typeof import('../../../src/api/schemas/request-schemas.ts')>('src/api/schemas/request-schemas.ts'),
  config: await load<typeof import('../../../src/config/api-config.ts')>('src/config/api-config.ts'),
  diff: await load<typeof import('../../../src/diff/index.ts')>('src/diff/index.ts'),
  log: await load<typeof import('../../../src/log/index.ts')>('src/log/index.ts'),
  metrics: await load<typeof import('../../../src/metrics/index.ts')>('src/metrics/index.ts'),
  digest: await load<typeof import('../../../src/store/capture-digest.ts')>('src/store/capture-digest.ts'),
  insight: await loadOptional<typeof import('../../../src/store/capture-insight.ts')>('src/store/capture-insight.ts'),
}

type CreateRequestBody = typeof api.schemas.createRequestBody.infer
type Catalog = Parameters<NonNullable<typeof api.insight>['captureInsight']>[0]

/**
 * The insight catalog once it knows the gate's templates and signatures:
 * a map lookup each (insight-catalog.ts), as after a gate's first captures.
 */
const knownCatalog: Catalog = {
  template: async (_gate, template) => template,
  signature: async (_gate, signature) => signature,
}

/** The store's work on a capture before its statement: what its insert computes in JavaScript. */
async function storeWork(capture: CaptureInput): Promise<unknown> {
  const insight = api.insight && (await api.insight.captureInsight(knownCatalog, GATE_ID, capture))
  return [insight, api.digest.captureDigest(capture)]
}

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

function summaryOf(capture: CaptureInput) {
  return {
    id: capture.id,
    method: capture.method,
    path: capture.path,
    raw_query: capture.raw_query,
    created_at: new Date().toISOString(),
    live_response: { status_code: capture.live_response.status_code, latency_ms: capture.live_response.latency_ms },
    shadow_response: { status_code: capture.shadow_response.status_code, latency_ms: capture.shadow_response.latency_ms },
    has_diff: capture.has_diff,
    template: capture.template ?? null,
    signature_id: null,
  }
}

/** The app and its edge as start-api.ts builds them, with the database stubbed out. */
function appHandler(level: LogLevel, logFd: number) {
  const config = api.config.loadApiConfig({
    SVC_APP_DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
    SVC_APP_API_KEY: API_KEY,
    SVC_APP_RATE_LIMIT: '100000000',
  })
  const logger = api.log.createLogger({ level, format: 'json', write: (line) => void writeSync(logFd, `${line}\n`) })
  const registry = new api.metrics.Registry()
  const http = api.metrics.createHttpServerMetrics(registry, { withRoute: true })
  // Only what createRequest touches; the rest is never called here.
  const gates = { settings: async () => ({ id: GATE_ID, diff_config: DIFF_CONFIG, redacted_fields: REDACTED, retention: '', endpoints: [] }) }
  const ctx = {
    config,
    logger,
    db: {} as ApiContext['db'],
    gates,
    gateSettings: new api.settings.GateSettingsCache(gates),
    ingestBacklog: new api.backlog.IngestBacklog(config.database.maxConns * api.backlog.CAPTURES_PER_CONNECTION),
    requests: {
      insert: async (_gate: string, capture: CaptureInput) => {
        await storeWork(capture)
        return { summary: summaryOf(capture), created: true }
      },
    },
    stats: {},
    registry,
    comparisons: api.metrics.createComparisonMetrics(registry),
    noiseChecks: api.metrics.createNoiseCheckMetrics?.(registry),
    lifecycle: { accepting: true },
  } as unknown as ApiContext
  const app = api.app.createApiApp(ctx)
  const fetch = api.handler.createHttpHandler({
    handle: (r) => app.handle(r),
    logger,
    bodyLimit: (method, path) => (api.limits.isCaptureRoute(method, path) ? api.limits.captureRequestLimit(config.maxBodyBytes) : config.maxBodyBytes),
    authorized: api.auth.apiBearerCheck(config),
    hstsMaxAgeSeconds: undefined,
    observe: (method, status, route, seconds) => http.observe(method, status, seconds, route),
  })
  const server = { requestIP: () => ({ address: '127.0.0.1', family: 'IPv4', port: 1 }) } as unknown as Parameters<typeof fetch>[1]
  return { fetch, server }
}

const OPTIONS = api.diff.ensureCompiled({ diff: DIFF_CONFIG, redactedFields: REDACTED })

/** processCapture of a createRequest body with the bench gate's settings. */
function processed(b: CreateRequestBody) {
  return api.diff.processCapture({
    request: { headers: b.headers, body: Buffer.from(b.body, 'base64') },
    live: { status: b.live_response.status_code, headers: b.live_response.headers, body: Buffer.from(b.live_response.body, 'base64') },
    shadow: { status: b.shadow_response.status_code, headers: b.shadow_response.headers, body: Buffer.from(b.shadow_response.body, 'base64') },
  }, OPTIONS)
}

/** A createRequest body as ingestCapture hands it to the store (redacted, diffed). */
function captureOf(b: CreateRequestBody, processed: ReturnType<typeof api.diff.processCapture>): CaptureInput {
  const response = (r: CreateRequestBody['live_response'], p: { headers: Record<string, string[]>; body: Uint8Array }) => ({
    id: crypto.randomUUID(),
    status_code: r.status_code,
    headers: p.headers,
    body: p.body,
    latency_ms: r.latency_ms,
    created_at: r.created_at,
  })
  const comparison = processed.comparison
  return {
    id: crypto.randomUUID(),
    method: b.method,
    path: b.path,
    raw_query: b.raw_query ?? '',
    headers: processed.request.headers,
    body: processed.request.body,
    created_at: b.created_at,
    live_response: response(b.live_response, processed.live),
    shadow_response: response(b.shadow_response, processed.shadow),
    has_diff: comparison.kind !== 'match',
    diff: comparison.kind === 'diff' ? comparison.ops : [],
  }
}

async function main(): Promise<void> {
  const { bodies } = makeCaptureBodies({ count: 256, diffShare: 0.2, bytes: 2048 })
  const parsed = bodies.map((b) => JSON.parse(b) as CreateRequestBody)
  const figures: Record<string, number> = {}
  const add = (name: string, us: number) => void (figures[name] = us)
  if (!argv.includes('--db-only')) await inProcess(bodies, parsed, add)
  if (argv.includes('--db') || argv.includes('--db-only')) await storeInsert(parsed.map((b) => captureOf(b, processed(b))), add)
  if (JSON_OUTPUT) {
    console.log(JSON.stringify(figures))
  } else {
    const rows = [['stage', 'CPU µs per capture'], ...Object.entries(figures).map(([name, us]) => [name, us.toFixed(1)])]
    for (const line of textTable(rows, new Set([1]))) console.log(line)
    console.log(`${ROOT}: CPU time of this process (user + system), best mean of 7 rounds (the store's: over INGEST_STAGES_SECONDS); all of it runs on the API's one JS thread.`)
  }
}

async function inProcess(bodies: string[], parsed: CreateRequestBody[], add: (name: string, us: number) => void): Promise<void> {
  const devNull = openSync('/dev/null', 'w')

  add('JSON.parse of the request body (~5.9 KB)', await perCall((i) => JSON.parse(bodies[i % bodies.length]!)))
  add('arktype validation of createRequest body', await perCall((i) => api.schemas.createRequestBody(parsed[i % parsed.length]!)))
  add('base64 decode of 3 bodies', await perCall((i) => {
    const b = parsed[i % parsed.length]!
    return [Buffer.from(b.body, 'base64'), Buffer.from(b.live_response.body, 'base64'), Buffer.from(b.shadow_response.body, 'base64')]
  }))
  add('processCapture (redaction + diff)', await perCall((i) => processed(parsed[i % parsed.length]!)))
  const captures = parsed.map((b) => captureOf(b, processed(b)))
  add('captureDigest (SHA-256 of the stored capture)', await perCall((i) => api.digest.captureDigest(captures[i % captures.length]!)))
  if (api.insight) {
    const insight = api.insight
    add('captureInsight (template, signature), catalog warm', await perCall((i) => insight.captureInsight(knownCatalog, GATE_ID, captures[i % captures.length]!)))
  }
  const summaries = captures.map((c) => ({ data: summaryOf(c) }))
  add('response envelope schema check', await perCall((i) => api.schemas.requestEnvelope(summaries[i % summaries.length]!)))
  const logger = api.log.createLogger({ level: 'info', format: 'json', write: (line) => void writeSync(devNull, `${line}\n`) })
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
    add(`whole createRequest without database (edge + Elysia + diff + store JS), log ${level}`, us)
  }
  closeSync(devNull)
}

/** RequestStore.insert against a fresh database: this process's CPU (the store's JS, postgres.js) and PostgreSQL's. */
async function storeInsert(captures: CaptureInput[], add: (name: string, us: number) => void): Promise<void> {
  const { createTestDatabase } = await load<typeof import('../../support/database.ts')>('test/support/database.ts')
  const { createGateStore } = await load<typeof import('../../../src/store/gate-store.ts')>('src/store/gate-store.ts')
  const { createRequestStore } = await load<typeof import('../../../src/store/request-store.ts')>('src/store/request-store.ts')
  const seconds = Number(process.env.INGEST_STAGES_SECONDS ?? 6)
  const database = await createTestDatabase('postgres', { pool: { max: 25 } })
  try {
    const gates = createGateStore(database.db.sql)
    const requests = createRequestStore(database.db.sql)
    const gate = await gates.create({ name: 'stages', live_url: 'http://127.0.0.1:9/a', shadow_url: 'http://127.0.0.1:9/b' })
    const backendCpu = async () => {
      const pids = await database.db.sql<{ pid: number }[]>`
        SELECT pid FROM pg_stat_activity WHERE datname = current_database()`
      return new Map(pids.map((p) => [p.pid, processCpuSeconds(p.pid)]))
    }
    const fresh = (c: CaptureInput): CaptureInput => ({
      ...c,
      id: crypto.randomUUID(),
      live_response: { ...c.live_response, id: crypto.randomUUID() },
      shadow_response: { ...c.shadow_response, id: crypto.randomUUID() },
    })
    // Each body once first: a gate's first capture of a template or signature admits it in a transaction of its own.
    for (const c of captures) await requests.insert(gate.id, fresh(c))
    for (const concurrency of [8, 32]) {
      let done = 0
      const pg0 = await backendCpu()
      const cpu0 = cpuMicros()
      const end = performance.now() + seconds * 1000
      let n = 0
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          const c = captures[n++ % captures.length]!
          await requests.insert(gate.id, fresh(c))
          done++
        }
      }))
      const clientUs = (cpuMicros() - cpu0) / done
      let pgSeconds = 0
      for (const [pid, cpu] of await backendCpu()) pgSeconds += cpu - (pg0.get(pid) ?? 0)
      add(`RequestStore.insert, ${concurrency} callers: client CPU`, clientUs)
      add(`RequestStore.insert, ${concurrency} callers: PostgreSQL CPU`, (pgSeconds * 1e6) / done)
    }
  } finally {
    await database.drop()
  }
}

await main()
