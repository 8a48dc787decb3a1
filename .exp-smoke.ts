import { createTestDatabase } from './test/support/database.ts'
import { createGateStore } from './src/store/gate-store.ts'
import { createRequestStore } from './src/store/request-store.ts'
import { createStatsStore } from './src/store/stats-store.ts'
import { runCleanup } from './src/store/cleanup.ts'
import { capture } from './test/integration/store/fixtures.ts'
for (const kind of ['postgres', 'pglite'] as const) {
  const t = await createTestDatabase(kind)
  const gates = createGateStore(t.db.sql), reqs = createRequestStore(t.db.sql), stats = createStatsStore(t.db.sql)
  const g = await gates.create({ name: 'a', live_url: 'http://l', shadow_url: 'http://s' })
  console.log(kind, g)
  const c = capture({ has_diff: true, raw_query: 'x=1' })
  console.log(await reqs.insert(g.id, c))
  console.log((await reqs.insert(g.id, c)).created)
  await reqs.insert(g.id, capture({ method: 'POST', created_at: new Date(Date.now() - 40 * 86400_000) }))
  console.log(await reqs.list(g.id, { limit: 10, offset: 0, sort: 'created_at', order: 'desc' }))
  console.log((await reqs.list(g.id, { limit: 10, offset: 0, sort: 'path', order: 'asc', method: ['GET'] })).total)
  console.log((await reqs.list(g.id, { limit: 10, offset: 0, sort: 'method', order: 'asc', path: 'items*' })).total)
  console.log(await gates.get(g.id), await gates.list({ limit: 5, offset: 0, sort: 'name', order: 'asc' }))
  console.log(await stats.globalStats())
  const d = await reqs.get(g.id, c.id)
  console.log(d)
  console.log(await gates.update(g.id, { retention: '800h', redacted_fields: ['body.x'] }))
  console.log('cleanup', await runCleanup(t.db.sql, { floorMs: 720 * 3600_000, batchSize: 10 }))
  console.log(await gates.get(g.id))
  await t.drop()
}
