import { describe, expect, test } from 'bun:test'
import { startTestApi } from '../../support/api-server.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

describe.each(BACKENDS)('/health/ready on %s', (backend) => {
  test('a flood of probes costs the database about one check per second', async () => {
    const t = await startTestApi(backend)
    try {
      // Count the checks readiness makes on the real database.
      const db = t.database.db
      const ping = db.ping.bind(db)
      let pings = 0
      db.ping = (timeoutMs) => {
        pings++
        return ping(timeoutMs)
      }
      const started = performance.now()
      const concurrent = await Promise.all(Array.from({ length: 50 }, () => fetch(t.url + '/health/ready')))
      expect(concurrent.map((res) => res.status)).toEqual(Array(50).fill(200))
      expect(pings).toBe(1)
      for (let i = 0; i < 50; i++) expect((await fetch(t.url + '/health/ready')).status).toBe(200)
      const seconds = (performance.now() - started) / 1000
      // One check per started second at most, however fast or slow the machine.
      expect(pings).toBeLessThanOrEqual(1 + Math.ceil(seconds))
    } finally {
      await t.stop()
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
})
