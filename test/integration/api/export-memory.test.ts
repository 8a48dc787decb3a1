import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { memoryMb, startApiProcess, stopApiProcess, type ApiProcess } from '../../bench/api-bench/api-process.ts'
import { captureBody } from '../../support/captures.ts'
import { createTestDatabase, DATABASE_HOOK_TIMEOUT_MS, type TestDatabase } from '../../support/database.ts'
import { freePort } from '../../support/ports.ts'

const KEY = 'export-memory-key-0123'
/** 20,000 captures with two 10 KB bodies each: an export of about 550 MB of NDJSON. */
const CAPTURES = 20_000
const BODY_BYTES = 10 * 1024

/**
 * The export streams: the API process's resident memory while it sends
 * hundreds of MB stays within a bound far below the export's size (one
 * page at a time), whatever the size of the export.
 */
describe('exportRequests at 20,000 captures of 20 KB, the API as a process', () => {
  let database: TestDatabase
  let api: ApiProcess
  let logDir: string
  let gateId: string

  const call = (path: string, init: RequestInit = {}) =>
    fetch(api.url + path, { ...init, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...init.headers } })

  beforeAll(async () => {
    database = await createTestDatabase('postgres')
    logDir = mkdtempSync(join(tmpdir(), 'export-memory-'))
    api = await startApiProcess(
      { SVC_APP_DATABASE_URL: database.url, SVC_APP_API_KEY: KEY, SVC_APP_RATE_LIMIT: '100000', SVC_APP_LOG_LEVEL: 'warn' },
      freePort(),
      join(logDir, 'api.log'),
    )
    gateId = ((await (await call('/gates', { method: 'POST', body: JSON.stringify({ name: 'big', live_url: 'http://l', shadow_url: 'http://s' }) })).json()) as { data: { id: string } }).data.id
    // One capture through the API, then copied in the database with fresh ids: seeding through createRequest would take minutes.
    const padding = 'x'.repeat(BODY_BYTES)
    const first = await call(`/gates/${gateId}/requests`, {
      method: 'POST',
      body: JSON.stringify(captureBody({ path: '/api/items/1', live: { padding, n: 1 }, shadow: { padding, n: 2 } })),
    })
    const seedId = ((await first.json()) as { data: { id: string } }).data.id
    const sql = database.db.sql
    await sql.begin(async (tx) => {
      await tx`
        INSERT INTO requests (id, gate_id, method, path, raw_query, created_at, live_status, live_latency_ms,
          shadow_status, shadow_latency_ms, has_diff, template, signature_id)
        SELECT md5(${seedId} || g)::uuid, gate_id, method, path, raw_query, created_at - g * interval '1 millisecond',
          live_status, live_latency_ms, shadow_status, shadow_latency_ms, has_diff, template, signature_id
        FROM requests, generate_series(1, ${CAPTURES - 1}) AS g WHERE id = ${seedId}`
      // Bodies differ per capture, so that the database cannot share or compress them away.
      await tx`
        INSERT INTO request_payloads (request_id, headers, body, live_response_id, live_headers, live_body, live_created_at,
          shadow_response_id, shadow_headers, shadow_body, shadow_created_at, diff)
        SELECT md5(${seedId} || g)::uuid, headers, body, gen_random_uuid(), live_headers,
          overlay(live_body PLACING decode(md5(g::text) || md5(g::text || 'l'), 'hex') FROM 1), live_created_at,
          gen_random_uuid(), shadow_headers, overlay(shadow_body PLACING decode(md5(g::text || 's'), 'hex') FROM 1),
          shadow_created_at, diff
        FROM request_payloads, generate_series(1, ${CAPTURES - 1}) AS g WHERE request_id = ${seedId}`
    })
  }, DATABASE_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await stopApiProcess(api)
    await database?.drop()
    if (logDir) rmSync(logDir, { recursive: true, force: true })
  })

  /** Reads an export to its end, pausing now and then like a slow consumer; returns its lines and bytes. */
  async function drain(query: string, sample?: () => void) {
    const res = await call(`/gates/${gateId}/requests/export${query}`)
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    let lines = 0
    let bytes = 0
    let chunks = 0
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      bytes += value.byteLength
      for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, i + 1)) lines++
      // Slower than the API can produce: an API that read ahead of its client would pile the export up.
      if (++chunks % 10 === 0) {
        sample?.()
        await Bun.sleep(10)
      }
    }
    return { lines, bytes }
  }

  /** drain, sampling the API's RSS every 50 ms and every ten chunks; returns the highest reading too. */
  async function sampledDrain(query: string) {
    let peak = memoryMb(api.pid).current
    const sample = () => (peak = Math.max(peak, memoryMb(api.pid).current))
    const timer = setInterval(sample, 50)
    try {
      const drained = await drain(query, sample)
      sample()
      return { ...drained, peak }
    } finally {
      clearInterval(timer)
    }
  }

  test('the API holds a page at a time: its RSS grows far less than the export is large', async () => {
    // A warm API: routes compiled, pool open, its heap grown to what a few thousand lines take
    // between two collections. The baseline is its highest RSS then, not a reading that may
    // follow a collection by chance: what matters is whether 20,000 lines take more than 3,000.
    const warm = await sampledDrain('?limit=3000')
    expect(warm.lines).toBe(3000)
    const baseline = warm.peak
    const { lines, bytes, peak } = await sampledDrain('')
    expect(lines).toBe(CAPTURES)
    const exportMb = bytes / 1024 / 1024
    expect(exportMb).toBeGreaterThan(500)
    console.log(`export ${exportMb.toFixed(0)} MB, API RSS at most ${baseline.toFixed(0)} MB over 3,000 lines, ${peak.toFixed(0)} MB over all`)
    // Holding the export, or a backlog of it, would take more than the export's size; a page at a
    // time takes what the garbage collector lets pile up between collections.
    expect(peak - baseline).toBeLessThan(200)
  }, 120_000)
})
