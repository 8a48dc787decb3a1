/**
 * `svc_database_ready{db_name}` on /metrics says what /health/ready says
 * about the database, without anyone probing /health/ready
 * (src/api/readiness-metric.ts, docs/metrics.md "API only").
 */
import { describe, expect, test } from 'bun:test'
import { createApi } from '../../../src/api/start-api.ts'
import { loadApiConfig } from '../../../src/config/api-config.ts'
import { createLogger } from '../../../src/log/index.ts'
import { migrate } from '../../../src/store/migrator.ts'
import { startTestApi, TEST_API_KEY } from '../../support/api-server.ts'
import { BACKENDS, createTestDatabase, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { familyOf } from '../../support/prometheus-text.ts'
import { waitFor } from '../../support/upstreams.ts'

/** The gauge's one series, as scraped: its db_name and value. */
async function databaseReady(url: string): Promise<{ dbName: string; value: number }> {
  const family = familyOf(await (await fetch(url + '/metrics')).text(), 'svc_database_ready')
  expect(family.type).toBe('GAUGE')
  expect(family.metrics).toHaveLength(1)
  const [sample] = family.metrics
  return { dbName: sample!.labels!['db_name']!, value: Number(sample!.value) }
}

/** Scrapes until the gauge reads `value` (readiness reuses an answer for a second). */
function scrapedUntil(url: string, value: number) {
  return waitFor(async () => ((await databaseReady(url)).value === value ? true : undefined), 5000, `svc_database_ready ${value}`)
}

describe.each(BACKENDS)('svc_database_ready on %s', (backend) => {
  test('1 for a migrated database, labelled with its name, before any readiness probe', async () => {
    const t = await startTestApi(backend)
    try {
      expect(await databaseReady(t.url)).toEqual({ dbName: t.api.context.db.dbName, value: 1 })
    } finally {
      await t.stop()
    }
  }, DATABASE_HOOK_TIMEOUT_MS)

  test('0 while the schema is not this build\'s, 1 once migrated', async () => {
    const database = await createTestDatabase(backend, { migrate: false })
    const logger = createLogger({ level: 'error', format: 'json', write: () => {} })
    const config = { ...loadApiConfig({ SVC_APP_DATABASE_URL: database.url, SVC_APP_API_KEY: TEST_API_KEY }), port: 0 }
    const api = await createApi(config, { logger, database: database.db, hostname: '127.0.0.1' })
    try {
      expect((await databaseReady(api.url)).value).toBe(0)
      await migrate(database.db.sql)
      await scrapedUntil(api.url, 1)
    } finally {
      await api.stop()
      await database.drop()
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
})

describe('svc_database_ready follows the database', () => {
  test('0 once PostgreSQL no longer answers', async () => {
    const t = await startTestApi('postgres')
    try {
      expect((await databaseReady(t.url)).value).toBe(1)
      await t.database.drop()
      await scrapedUntil(t.url, 0)
    } finally {
      await t.stop()
    }
  })
})
