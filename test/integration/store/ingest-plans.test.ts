import { expect, test } from 'bun:test'
import { createGateStore } from '../../../src/store/gate-store.ts'
import { createRequestStore } from '../../../src/store/request-store.ts'
import { createTestDatabase, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { recordSettingOnInsert } from '../../support/setting-seen-by-insert.ts'
import { capture } from './fixtures.ts'

// The API's pool plans every statement anew (force_custom_plan, src/store/database.ts). The
// foreign-key checks PostgreSQL runs for each inserted row are parameterised statements too,
// so under that setting each row of a capture insert was planned twice more; the insert sets
// plan_cache_mode back to auto for its own transaction (docs/storage.md "Ingest").
test('foreign-key checks of a capture insert run with plan_cache_mode auto; the pool keeps force_custom_plan', async () => {
  const t = await createTestDatabase('postgres', { pool: { max: 1 } })
  try {
    const sql = t.db.sql
    // An AFTER ROW trigger, fired where the foreign-key checks are.
    const seen = await recordSettingOnInsert(sql, 'plan_cache_mode', 'AFTER')
    const gate = await createGateStore(sql).create({ name: 'plans', live_url: 'http://l:1', shadow_url: 'http://s:1' })
    const requests = createRequestStore(sql)
    await requests.insert(gate.id, capture())
    await Promise.all(Array.from({ length: 6 }, () => requests.insert(gate.id, capture())))
    expect(await seen()).toEqual(Array(7).fill('auto'))
    const [after] = await sql<{ plan_cache_mode: string }[]>`SHOW plan_cache_mode`
    expect(after!.plan_cache_mode).toBe('force_custom_plan')
  } finally {
    await t.drop()
  }
}, DATABASE_HOOK_TIMEOUT_MS)
