import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, brotliDecompressSync, constants, gzipSync, gunzipSync, inflateRawSync } from 'node:zlib'
import { createTestDatabase, type TestDatabase } from '../support/database.ts'
// Children get fixed ports: 0 may not be accepted.
import { freePort } from '../support/ports.ts'

/**
 * The redaction sweep: credentials in every place redaction covers, sent
 * through a proxy in API mode (real API on PostgreSQL) and a standalone
 * proxy, each a child process logging at debug. Afterwards no secret may
 * appear in what was stored (every capture's details, bodies decoded from
 * base64 and decompressed as far as they go), in any process's stdout or
 * stderr, in either /metrics, or in an error body.
 *
 * Each place has its own secret, so a failure names where it was put in.
 */

const MAIN = join(import.meta.dir, '../../src/main.ts')
const API_KEY = 'sweep-api-key-0123456789'
const TIMEOUT_MS = 120_000

/** The body codings each request and response is sent in. */
const VARIANTS = ['identity', 'gzip', 'br', 'truncated-gzip'] as const
type Variant = (typeof VARIANTS)[number]
/** Authorization header names as clients spell them; one per request. */
const AUTH_SPELLINGS = ['authorization', 'AUTHORIZATION', 'Authorization', 'aUtHoRiZaTiOn'] as const

/** Every secret planted, by where it was planted. */
const secrets = new Map<string, string>()
function secret(place: string): string {
  let value = secrets.get(place)
  if (value === undefined) {
    value = `SWEEPSECRET${secrets.size.toString().padStart(3, '0')}x${crypto.randomUUID().slice(0, 8)}`
    secrets.set(place, value)
  }
  return value
}

function encode(variant: Variant, json: unknown): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(json))
  switch (variant) {
    case 'identity':
      return text
    case 'gzip':
      return gzipSync(text)
    case 'br':
      return brotliCompressSync(text)
    case 'truncated-gzip': {
      // Cut inside the deflate stream, in the filler after the secret: a partial gunzip still shows the secret.
      const full = gzipSync(text)
      return full.subarray(0, full.length - 12)
    }
  }
}

/** Incompressible text after each secret, where a truncated gzip is cut. */
const FILLER = crypto.randomUUID() + crypto.randomUUID()

const CODING: Record<Variant, string | undefined> = { identity: undefined, gzip: 'gzip', br: 'br', 'truncated-gzip': 'gzip' }

/** Every readable form of some bytes: as text, and decompressed as far as they go. */
function readings(bytes: Uint8Array): string[] {
  const out = [Buffer.from(bytes).toString('latin1')]
  const attempts: Array<() => Buffer> = [
    () => gunzipSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH }),
    () => inflateRawSync(bytes.subarray(10), { finishFlush: constants.Z_SYNC_FLUSH }),
    () => brotliDecompressSync(bytes, { finishFlush: constants.BROTLI_OPERATION_FLUSH }),
  ]
  for (const attempt of attempts) {
    try {
      out.push(attempt().toString('latin1'))
    } catch {
      // not that coding, or nothing decodable
    }
  }
  return out
}

/** Which secrets appear in a text, as `place in where`. */
function leaks(where: string, texts: readonly string[]): string[] {
  const found: string[] = []
  for (const [place, value] of secrets) {
    if (texts.some((t) => t.includes(value))) found.push(`${place} in ${where}`)
  }
  return found
}

// ---------------------------------------------------------------------------
// Processes and servers

interface Child {
  readonly name: string
  readonly proc: Bun.Subprocess<'ignore', 'pipe', 'pipe'>
  stdout: string
  stderr: string
  stop(): Promise<void>
}

function spawnMain(name: string, component: string, env: Record<string, string>, cwd: string): Child {
  const proc = Bun.spawn(['bun', 'run', MAIN, component], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_APP_LOG_LEVEL: 'debug', SVC_APP_LOG_FORMAT: 'json', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const child: Child = {
    name,
    proc,
    stdout: '',
    stderr: '',
    async stop() {
      if (proc.exitCode === null) {
        proc.kill('SIGTERM')
        await Promise.race([proc.exited, Bun.sleep(10_000)])
        if (proc.exitCode === null) proc.kill('SIGKILL')
      }
      await Promise.all([outDone, errDone])
    },
  }
  const drain = async (stream: ReadableStream<Uint8Array>, key: 'stdout' | 'stderr') => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) child[key] += decoder.decode(chunk, { stream: true })
  }
  const outDone = drain(proc.stdout, 'stdout')
  const errDone = drain(proc.stderr, 'stderr')
  return child
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, child?: Child, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (let i = 0; Date.now() < deadline && i < 1000; i++) {
    if (child && child.proc.exitCode !== null) throw new Error(`${child.name} exited (${child.proc.exitCode}) while waiting for ${what}: ${child.stderr}`)
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    await Bun.sleep(100)
  }
  throw new Error(`timed out waiting for ${what}`)
}

const ready = (url: string, child: Child) =>
  until(`${child.name} to be ready`, async () => ((await fetch(`${url}/health/ready`)).ok ? true : undefined), child)

/** Live or shadow: answers /v/<variant> with secrets in Set-Cookie (twice), X-Api-Key and body.password. */
function startUpstream(mode: string, side: 'live' | 'shadow') {
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    development: false,
    async fetch(req) {
      await req.arrayBuffer()
      const variant = new URL(req.url).pathname.split('/')[2] as Variant
      const headers = new Headers({ 'Content-Type': 'application/json' })
      headers.append('Set-Cookie', `session=${secret(`${mode}: ${side} response Set-Cookie #1 (${variant})`)}; HttpOnly`)
      headers.append('Set-Cookie', `csrf=${secret(`${mode}: ${side} response Set-Cookie #2 (${variant})`)}; Path=/`)
      headers.set('X-Api-Key', secret(`${mode}: ${side} response X-Api-Key (${variant})`))
      const coding = CODING[variant]
      if (coding) headers.set('Content-Encoding', coding)
      const body = { id: 7, side, password: secret(`${mode}: ${side} response body.password (${variant})`), items: [side === 'live' ? 1 : 2], filler: FILLER }
      return new Response(new Uint8Array(encode(variant, body)), { headers })
    },
  })
}

interface RawResponse {
  readonly status: number
  readonly text: string
}

/** One request with its header lines exactly as written (any case), over a fresh connection. */
function rawRequest(port: number, head: string[], body: Uint8Array): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const lines = [...head, `Host: 127.0.0.1:${port}`, `Content-Length: ${body.length}`, 'Connection: close', '', '']
      socket.write(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]))
    })
    const chunks: Buffer[] = []
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 15 s')), 15_000)
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('end', () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString('latin1')
      resolve({ status: Number(text.split(' ')[1]), text })
    })
    socket.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
  })
}

/**
 * Sends one POST per variant (GET and HEAD bodies are not forwarded; the
 * proxies allow POST:/v/* by a rule): the credentials in every header
 * redaction covers, body.password in the body.
 */
async function sendTraffic(mode: string, proxyPort: number): Promise<number> {
  let sent = 0
  for (const [index, variant] of VARIANTS.entries()) {
    const spelling = AUTH_SPELLINGS[index % AUTH_SPELLINGS.length]!
    const head = [
      `POST /v/${variant}?page=${index} HTTP/1.1`,
      `${spelling}: Bearer ${secret(`${mode}: request ${spelling} (${variant})`)}`,
      `${index % 2 ? 'x-api-key' : 'X-API-KEY'}: ${secret(`${mode}: request X-Api-Key (${variant})`)}`,
      `Cookie: sid=${secret(`${mode}: request Cookie (${variant})`)}`,
      'Content-Type: application/json',
      ...(CODING[variant] ? [`Content-Encoding: ${CODING[variant]}`] : []),
    ]
    const body = encode(variant, { user: 'u', password: secret(`${mode}: request body.password (${variant})`), filler: FILLER })
    const res = await rawRequest(proxyPort, head, body)
    expect(res.status).toBe(200)
    sent++
  }
  return sent
}

// ---------------------------------------------------------------------------

const cwd = mkdtempSync(join(tmpdir(), 'svc-sweep-'))
const children: Child[] = []
const upstreams: Array<ReturnType<typeof Bun.serve>> = []
let database: TestDatabase
let apiUrl: string
let gateId: string
let apiProxy: { child: Child; url: string; port: number; admin: string }
let standalone: { child: Child; url: string; port: number; admin: string }
const errorBodies: Array<{ where: string; text: string }> = []

const authed = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }

async function startProxy(name: string, env: Record<string, string>) {
  const port = freePort()
  const adminPort = freePort()
  const child = spawnMain(name, 'proxy', { SVC_APP_PORT: String(port), SVC_APP_ADMIN_PORT: String(adminPort), SVC_APP_SHADOW_RULES: 'allow POST:/v/*', ...env }, cwd)
  children.push(child)
  const admin = `http://127.0.0.1:${adminPort}`
  await ready(admin, child)
  return { child, url: `http://127.0.0.1:${port}`, port, admin }
}

beforeAll(async () => {
  database = await createTestDatabase('postgres')
  const apiPort = freePort()
  const api = spawnMain('the API', 'api', { SVC_APP_DATABASE_URL: database.url, SVC_APP_API_KEY: API_KEY, SVC_APP_PORT: String(apiPort), SVC_APP_RATE_LIMIT: '100000' }, cwd)
  children.push(api)
  apiUrl = `http://127.0.0.1:${apiPort}`
  await ready(apiUrl, api)

  const [live, shadow, soloLive, soloShadow] = [
    startUpstream('API mode', 'live'),
    startUpstream('API mode', 'shadow'),
    startUpstream('standalone', 'live'),
    startUpstream('standalone', 'shadow'),
  ]
  upstreams.push(live, shadow, soloLive, soloShadow)

  const created = await fetch(`${apiUrl}/gates`, {
    method: 'POST',
    headers: authed,
    body: JSON.stringify({ name: 'sweep', live_url: live.url.href.replace(/\/$/, ''), shadow_url: shadow.url.href.replace(/\/$/, '') }),
  })
  if (created.status !== 201) throw new Error(`createGate: ${created.status} ${await created.text()}`)
  gateId = ((await created.json()) as { data: { id: string } }).data.id
  const patched = await fetch(`${apiUrl}/gates/${gateId}`, { method: 'PATCH', headers: authed, body: JSON.stringify({ redacted_fields: ['body.password'] }) })
  if (patched.status !== 200) throw new Error(`updateGate: ${patched.status} ${await patched.text()}`)

  apiProxy = await startProxy('the API-mode proxy', { SVC_APP_API_URL: apiUrl, SVC_APP_GATE_ID: gateId, SVC_APP_API_KEY: API_KEY })
  standalone = await startProxy('the standalone proxy', {
    SVC_APP_LIVE_URL: soloLive.url.href.replace(/\/$/, ''),
    SVC_APP_SHADOW_URL: soloShadow.url.href.replace(/\/$/, ''),
    SVC_APP_REDACTED_FIELDS: 'body.password',
  })
}, TIMEOUT_MS)

afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()))
  for (const server of upstreams) server.stop(true)
  await database?.drop()
  rmSync(cwd, { recursive: true, force: true })
})

describe('redaction sweep', () => {
  test(
    'no secret reaches storage, logs, metrics or error bodies',
    async () => {
      const sentApi = await sendTraffic('API mode', apiProxy.port)
      const sentSolo = await sendTraffic('standalone', standalone.port)

      // A capture the API refuses: its Problem names the field, not the credentials beside it.
      const refused = await fetch(`${apiUrl}/gates/${gateId}/requests`, {
        method: 'POST',
        headers: authed,
        body: JSON.stringify({
          method: 'GET',
          path: '/refused',
          headers: { Authorization: [`Bearer ${secret('API error: submitted Authorization')}`], 'bad header': ['x'] },
          body: '',
          live_response: { status_code: 200, headers: { 'X-Api-Key': [`${secret('API error: submitted X-Api-Key')}\r\n`] }, body: '', latency_ms: 1 },
          shadow_response: { status_code: 99, headers: {}, body: '', latency_ms: 1 },
        }),
      })
      expect(refused.status).toBe(400)
      errorBodies.push({ where: 'the API error body for a refused capture', text: await refused.text() })

      // Every capture of the API-mode proxy arrives (bounded wait), then every one is read back.
      const listed = await until('the API-mode captures', async () => {
        const page = (await (await fetch(`${apiUrl}/gates/${gateId}/requests?limit=100`, { headers: authed })).json()) as {
          data: Array<{ id: string }>
          pagination: { total: number }
        }
        return page.pagination.total >= sentApi ? page.data : undefined
      })
      // Standalone: every request compared (its diffs are logged).
      await until('the standalone comparisons', async () => {
        const text = await (await fetch(`${standalone.admin}/metrics`)).text()
        const compared = [...text.matchAll(/^svc_responses_compared_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0)
        return compared >= sentSolo ? true : undefined
      })

      const found: string[] = []
      for (const { id } of listed) {
        const text = await (await fetch(`${apiUrl}/gates/${gateId}/requests/${id}`, { headers: authed })).text()
        found.push(...leaks(`getRequest ${id}`, [text]))
        const detail = (JSON.parse(text) as { data: { path: string; body: string; live_response: { body: string }; shadow_response: { body: string } } }).data
        for (const [part, base64] of [
          ['request body', detail.body],
          ['live body', detail.live_response.body],
          ['shadow body', detail.shadow_response.body],
        ] as const) {
          found.push(...leaks(`the stored ${part} of ${detail.path}`, readings(Buffer.from(base64, 'base64'))))
        }
      }
      const listText = await (await fetch(`${apiUrl}/gates/${gateId}/requests?limit=100`, { headers: authed })).text()
      found.push(...leaks('listRequests', [listText]))
      found.push(...leaks('the API /metrics', [await (await fetch(`${apiUrl}/metrics`)).text()]))
      found.push(...leaks('the API-mode proxy /metrics', [await (await fetch(`${apiProxy.admin}/metrics`)).text()]))
      found.push(...leaks('the standalone proxy /metrics', [await (await fetch(`${standalone.admin}/metrics`)).text()]))
      for (const { where, text } of errorBodies) found.push(...leaks(where, [text]))

      // The logs, complete once every process has stopped.
      await Promise.all(children.map((c) => c.stop()))
      for (const child of children) {
        found.push(...leaks(`${child.name}'s stdout`, [child.stdout]))
        found.push(...leaks(`${child.name}'s stderr`, [child.stderr]))
      }
      expect(found).toEqual([])

      // The sweep saw what it should: every capture stored, each diff logged, at debug.
      expect(listed.length).toBe(sentApi)
      const diffLines = standalone.child.stdout.split('\n').filter((line) => line.includes('"response diff detected"'))
      expect(diffLines.length).toBe(sentSolo)

    },
    TIMEOUT_MS,
  )
})
