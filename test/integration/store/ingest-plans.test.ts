import { expect, test } from 'bun:test'
import { createGateStore } from '../../../src/store/gate-store.ts'
import { createRequestStore } from '../../../src/store/request-store.ts'
import { createTestDatabase, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { capture } from './fixtures.ts'

// The API's pool plans every statement anew (force_custom_plan, src/store/database.ts). The
// foreign-key checks PostgreSQL runs for each inserted row are parameterised statements too,
// so under that setting each row of a capture insert was planned twice more; the insert sets
// plan_cache_mode back to auto for its own transaction (docs/storage.md "Ingest").
test('foreign-key checks of a capture insert run with plan_cache_mode auto; the pool keeps force_custom_plan', async () => {
  const t = await createTestDatabase('postgres', { pool: { max: 1 } })
  try {
    const sql = t.db.sql
    await sql`CREATE TABLE seen_plan_modes (mode text NOT NULL)`
    await sql`
      CREATE FUNCTION record_plan_mode() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO seen_plan_modes VALUES (current_setting('plan_cache_mode'));
        RETURN NULL;
      END $$`
    // An AFTER ROW trigger, fired where the foreign-key checks are.
    await sql`CREATE TRIGGER record_plan_mode AFTER INSERT ON requests FOR EACH ROW EXECUTE FUNCTION record_plan_mode()`
    const gate = await createGateStore(sql).create({ name: 'plans', live_url: 'http://l:1', shadow_url: 'http://s:1' })
    const requests = createRequestStore(sql)
    await requests.insert(gate.id, capture())
    await Promise.all(Array.from({ length: 6 }, () => requests.insert(gate.id, capture())))
    expect((await sql<{ mode: string }[]>`SELECT mode FROM seen_plan_modes`).map((row) => row.mode)).toEqual(Array(7).fill('auto'))
    const [after] = await sql<{ plan_cache_mode: string }[]>`SHOW plan_cache_mode`
    expect(after!.plan_cache_mode).toBe('force_custom_plan')
  } finally {
    await t.drop()
  }
}, DATABASE_HOOK_TIMEOUT_MS)
