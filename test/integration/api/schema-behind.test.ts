/**
 * An API started on a database that was never migrated answers its
 * operations 503 `/errors/unavailable` saying to run `bun run migrate`,
 * not 500 (src/api/plugins/problem-handler.ts), and serves them once the
 * database is migrated; a missing table on a schema at this build's
 * version is a bug, still a 500. The OpenAPI document lists the 503 on
 * every operation that reads the database.
 */
import { describe, expect, test } from 'bun:test'
import { createApi } from '../../../src/api/start-api.ts'
import { loadApiConfig } from '../../../src/config/api-config.ts'
import { createLogger } from '../../../src/log/index.ts'
import { migrate } from '../../../src/store/migrator.ts'
import { TEST_API_KEY } from '../../support/api-server.ts'
import { BACKENDS, createTestDatabase, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

interface OpenApiDocument {
  readonly paths: Record<string, Record<string, { operationId?: string; responses: Record<string, { content?: Record<string, unknown> }> }>>
}

describe.each(BACKENDS)('a database without this build\'s schema, on %s', (backend) => {
  test('503 naming `bun run migrate` with Retry-After, then 201 once migrated; the OpenAPI document says so', async () => {
    const database = await createTestDatabase(backend, { migrate: false })
    const records: Record<string, unknown>[] = []
    const logger = createLogger({ level: 'info', format: 'json', write: (line) => records.push(JSON.parse(line)) })
    const config = { ...loadApiConfig({ SVC_APP_DATABASE_URL: database.url, SVC_APP_API_KEY: TEST_API_KEY }), port: 0 }
    const api = await createApi(config, { logger, database: database.db, hostname: '127.0.0.1' })
    const call = (method: string, path: string, body?: unknown) =>
      fetch(api.url + path, {
        method,
        headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const gate = { name: 'checkout', live_url: 'http://127.0.0.1:9001', shadow_url: 'http://127.0.0.1:9002' }
    try {
      for (const res of [await call('POST', '/gates', gate), await call('GET', '/gates')]) {
        expect(res.status).toBe(503)
        expect(res.headers.get('content-type')).toStartWith('application/problem+json')
        expect(res.headers.get('retry-after')).toBe('30')
        const problem = (await res.json()) as { type: string; status: number; detail: string }
        expect(problem).toMatchObject({ type: '/errors/unavailable', status: 503 })
        expect(problem.detail).toStartWith('the database is not ready for this build: schema version 0, this build needs ')
        expect(problem.detail).toEndWith('run `bun run migrate`')
      }
      // Known, so not logged as an unexpected error with a stack: readiness and the startup line say it already.
      expect(records.filter((r) => r['msg'] === 'unexpected error')).toEqual([])

      const doc = (await (await fetch(api.url + '/swagger/json')).json()) as OpenApiDocument
      const operations = Object.values(doc.paths).flatMap((item) => Object.values(item))
      const byId = (id: string) => operations.find((op) => op.operationId === id)!
      for (const id of ['createGate', 'listGates', 'getGate', 'listRequests', 'getVerdict', 'startRediff']) {
        expect(Object.keys(byId(id).responses['503']?.content ?? {})).toEqual(['application/problem+json'])
      }
      expect(byId('getConfig').responses['503']).toBeUndefined()

      await migrate(database.db.sql)
      expect((await call('POST', '/gates', gate)).status).toBe(201)

      // The same failure on a schema at this build's version is not the operator's to migrate: a 500, logged.
      await database.db.sql`ALTER TABLE gates RENAME TO gates_elsewhere`
      const broken = await call('GET', '/gates')
      expect(broken.status).toBe(500)
      expect(((await broken.json()) as { type: string }).type).toBe('/errors/internal')
      expect(records.filter((r) => r['msg'] === 'unexpected error')).toHaveLength(1)
      await database.db.sql`ALTER TABLE gates_elsewhere RENAME TO gates`
    } finally {
      await api.stop()
      await database.drop()
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
})
