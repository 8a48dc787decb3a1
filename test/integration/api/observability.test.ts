import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { familyOf, histogramSeries, parseExposition, sampleOf } from '../../support/prometheus-text.ts'
import { startTestApi, TEST_API_KEY, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, createTestDatabase, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { createApi } from '../../../src/api/start-api.ts'
import { loadApiConfig } from '../../../src/config/api-config.ts'
import { createLogger } from '../../../src/log/index.ts'
import { migrate } from '../../../src/store/migrator.ts'
import { waitFor } from '../../support/upstreams.ts'
import { REQUIRED_SCHEMA_VERSION } from '../../../src/store/schema-version.ts'

describe.each(BACKENDS)('health, metrics and docs on %s', (backend) => {
  let t: TestApi
  beforeAll(async () => {
    t = await startTestApi(backend)
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  const scrape = async () => {
    const res = await fetch(t.url + '/metrics')
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4')
    return res.text()
  }

  test('health: live and ready answer 200', async () => {
    expect((await fetch(t.url + '/health/live')).status).toBe(200)
    const ready = await fetch(t.url + '/health/ready')
    expect(ready.status).toBe(200)
  })

  test('metrics: request durations by route template, comparisons by gate and result, pool and process series', async () => {
    const gate = ((await (await t.call('POST', '/gates', { name: 'm', live_url: 'http://l:1', shadow_url: 'http://s:1' })).json()) as { data: { id: string } }).data.id
    await t.call('POST', `/gates/${gate}/requests`, captureBody({ live: { a: 1 }, shadow: { a: 2, b: 3 } }))
    await t.call('POST', `/gates/${gate}/requests`, captureBody({ live: { a: 1 } }))
    await t.call('GET', `/gates/${gate}`)
    await fetch(`${t.url}/gates/${gate}`, { headers: { authorization: 'Bearer wrong-key-0123456789' } })
    await fetch(`${t.url}/no/such/path`)
    const text = await scrape()
    const names = parseExposition(text).map((f) => f.name)

    expect(familyOf(text, 'http_server_request_duration_seconds').type).toBe('HISTOGRAM')
    const routeLines = text.split('\n').filter((l) => l.startsWith('http_server_request_duration_seconds_count'))
    expect(routeLines.some((l) => l.includes('http_route="/gates/:gate_id"'))).toBe(true)
    expect(routeLines.some((l) => l.includes('http_route="/gates/:gate_id/requests"'))).toBe(true)
    expect(routeLines.some((l) => l.includes(gate))).toBe(false)
    const getGate = histogramSeries(text, 'http_server_request_duration_seconds', {
      http_route: '/gates/:gate_id',
      http_request_method: 'GET',
      http_response_status_code: '200',
    })
    expect(Number(getGate.count)).toBeGreaterThanOrEqual(1)
    // Refused before routing, still counted under the route it asked for; an unknown path under none.
    const refused = histogramSeries(text, 'http_server_request_duration_seconds', {
      http_route: '/gates/:gate_id',
      http_request_method: 'GET',
      http_response_status_code: '401',
    })
    expect(Number(refused.count)).toBe(1)
    expect(routeLines.some((l) => l.includes('no/such'))).toBe(false)

    const compared = familyOf(text, 'svc_responses_compared_total')
    expect(Number(sampleOf(compared, { gate, result: 'diff' })?.value)).toBe(1)
    expect(Number(sampleOf(compared, { gate, result: 'match' })?.value)).toBe(1)
    expect(Number(histogramSeries(text, 'svc_diff_operations', { gate }).count)).toBe(1)

    // One gate, one set of series, however its id is spelt in the path.
    await t.call('POST', `/gates/${gate.toUpperCase()}/requests`, captureBody({ live: { a: 1 } }))
    // A capture whose live failed is an error of side live, one whose shadow failed of side shadow.
    await t.call('POST', `/gates/${gate}/requests`, captureBody({ liveStatus: 0, liveHeaders: {}, live: 'live: connection refused' }))
    await t.call('POST', `/gates/${gate}/requests`, captureBody({ shadowStatus: 0, shadowHeaders: {}, shadow: 'shadow: timed out after 1s' }))
    const afterErrors = await scrape()
    expect(Number(sampleOf(familyOf(afterErrors, 'svc_responses_compared_total'), { gate, result: 'error' })?.value)).toBe(2)
    const sides = familyOf(afterErrors, 'svc_comparison_errors_total')
    expect([sampleOf(sides, { gate, side: 'live' })?.value, sampleOf(sides, { gate, side: 'shadow' })?.value, sampleOf(sides, { gate, side: 'both' })?.value]).toEqual(['1', '1', '0'])
    const again = familyOf(await scrape(), 'svc_responses_compared_total')
    expect(Number(sampleOf(again, { gate, result: 'match' })?.value)).toBe(2)
    expect(again.metrics.some((m) => m.labels?.gate === gate.toUpperCase())).toBe(false)
    // A deleted gate's series go with it.
    expect((await t.call('DELETE', `/gates/${gate}`)).status).toBe(204)
    expect(familyOf(await scrape(), 'svc_responses_compared_total').metrics.some((m) => m.labels?.gate === gate)).toBe(false)

    const pool = familyOf(text, 'db_client_connection_count')
    expect(pool.metrics.length).toBeGreaterThan(0)
    expect(pool.metrics.every((m) => (m.labels?.db_name ?? '') !== '')).toBe(true)
    expect(names).toContain('process_resident_memory_bytes')
    expect(names).toContain('process_cpu_seconds_total')
    expect(names.some((name) => name.endsWith('_requests_total'))).toBe(false)
  })

  test('the OpenAPI description has version 1.0.0 and every documented operation', async () => {
    type Response = { description: string; content?: Record<string, unknown> }
    const doc = (await (await fetch(t.url + '/swagger/json')).json()) as {
      info: { version: string }
      paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, Response> }>>
    }
    // Each operation documents the statuses docs/reference/api.md gives it,
    // deleteGate's bodiless 204 included.
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path]![method]!.responses ?? {}).sort()
    expect(statuses('/gates', 'get')).toEqual(['200', '400', '401', '429', '500', '503'])
    expect(statuses('/gates/{gate_id}', 'delete')).toEqual(['204', '400', '401', '404', '429', '500', '503'])
    expect(doc.paths['/gates/{gate_id}']!.delete!.responses!['204']!.content).toBeUndefined()
    expect(statuses('/config', 'get')).toEqual(['200', '401', '429', '500'])
    // Error bodies are problems, as served, and each status says what it means.
    const notFound = doc.paths['/gates/{gate_id}']!.get!.responses!['404']!
    expect(Object.keys(notFound.content!)).toEqual(['application/problem+json'])
    expect(notFound.description).toBe('No such resource')
    expect(Object.keys(doc.paths['/gates']!.get!.responses!['200']!.content!)).toEqual(['application/json'])
    expect(doc.info.version).toBe('1.0.0')
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId))
    for (const id of ['getConfig', 'getGlobalStats', 'listGates', 'createGate', 'getGate', 'updateGate', 'deleteGate', 'listRequests', 'createRequest', 'getRequest']) {
      expect(operations).toContain(id)
    }
    const createGate = JSON.stringify(doc.paths['/gates']!.post)
    expect(createGate).toContain('live_url')
    expect(createGate).not.toContain('arktype')
  })

  test('createRequest documents its 409 (reused id), 413 (a decoded body) and the capture_rejected member', async () => {
    type Response = { description: string; content?: Record<string, { schema?: unknown }> }
    const doc = (await (await fetch(t.url + '/swagger/json')).json()) as {
      paths: Record<string, Record<string, { responses?: Record<string, Response> }>>
    }
    const responses = doc.paths['/gates/{gate_id}/requests']!.post!.responses!
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['201', '400', '409', '413', '500']))
    expect(responses['409']!.description).toContain('different content')
    expect(responses['413']!.description).toContain('decoded body')
    expect(responses['500']!.description).toContain('capture_rejected')
    expect(JSON.stringify(responses['500']!.content!['application/problem+json']!.schema)).toContain('capture_rejected')
    // Elsewhere a 409 keeps its generic meaning.
    expect(doc.paths['/gates']!.post!.responses!['409']!.description).toBe('Conflicts with an existing resource')
  })

  test('Swagger UI loads its files from the API itself', async () => {
    const html = await (await fetch(t.url + '/swagger')).text()
    expect(html).toContain('/swagger/assets/swagger-ui-bundle.js')
    expect(html).not.toMatch(/https?:\/\/(unpkg|cdn)/)
    const bundle = await fetch(t.url + '/swagger/assets/swagger-ui-bundle.js')
    expect(bundle.status).toBe(200)
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000)
  })

  test.each(['/swagger', '/swagger/'])('the page at %s finds the description', async (path) => {
    const page = t.url + path
    const html = await (await fetch(page)).text()
    const specUrl = /"url"\s*:\s*"([^"]+)"/.exec(html)?.[1]
    expect(specUrl).toBeDefined()
    const spec = await fetch(new URL(specUrl!, page))
    expect(spec.status).toBe(200)
    expect(((await spec.json()) as { info: { version: string } }).info.version).toBe('1.0.0')
  })
})

describe.each(BACKENDS)('readiness and metrics switches on %s', (backend) => {
  test('/metrics is absent when SVC_APP_METRICS_ENABLED is false', async () => {
    const t = await startTestApi(backend, { SVC_APP_METRICS_ENABLED: 'false' })
    try {
      expect((await fetch(t.url + '/metrics')).status).toBe(404)
    } finally {
      await t.stop()
    }
  })

  test('/health/ready answers 503 once shutdown begins', async () => {
    const t = await startTestApi(backend)
    try {
      t.api.context.lifecycle.accepting = false
      expect((await fetch(t.url + '/health/ready')).status).toBe(503)
      expect((await fetch(t.url + '/health/live')).status).toBe(200)
    } finally {
      await t.stop()
    }
  })
})

describe.each(BACKENDS)('readiness follows the schema on %s', (backend) => {
  test('an unmigrated database: a clear line at startup, 503 until migrated, then 200', async () => {
    const database = await createTestDatabase(backend, { migrate: false })
    const logs: string[] = []
    const logger = createLogger({ level: 'debug', format: 'json', write: (line) => void logs.push(line) })
    const config = { ...loadApiConfig({ SVC_APP_DATABASE_URL: database.url, SVC_APP_API_KEY: TEST_API_KEY }), port: 0 }
    const api = await createApi(config, { logger, database: database.db, hostname: '127.0.0.1' })
    try {
      const said = await waitFor(() => logs.find((line) => line.includes('database not ready')), 5000, 'the startup line')
      expect(said).toContain(`schema version 0, this build needs ${REQUIRED_SCHEMA_VERSION}: run \`bun run migrate\``)
      const before = await fetch(api.url + '/health/ready')
      expect(before.status).toBe(503)
      expect(((await before.json()) as { schema: string }).schema).toBe(`schema version 0, this build needs ${REQUIRED_SCHEMA_VERSION}: run \`bun run migrate\``)
      await migrate(database.db.sql)
      // The 503 is reused for a second (README "Decisions", readiness).
      await waitFor(async () => ((await fetch(api.url + '/health/ready')).status === 200 ? true : undefined), 5000, 'readiness after the migration')
    } finally {
      await api.stop()
      await database.drop()
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
})

describe('readiness follows the database', () => {
  test('/health/ready answers 503 when PostgreSQL no longer answers', async () => {
    const t = await startTestApi('postgres')
    try {
      expect((await fetch(t.url + '/health/ready')).status).toBe(200)
      await t.database.drop()
      // The 200 is reused for a second (README "Decisions", readiness).
      const res = await waitFor(async () => {
        const answer = await fetch(t.url + '/health/ready')
        return answer.status === 503 ? answer : undefined
      }, 5000, 'readiness to notice the database is gone')
      expect(await res.json()).toMatchObject({ database: 'unreachable' })
    } finally {
      await t.stop()
    }
  })
})
