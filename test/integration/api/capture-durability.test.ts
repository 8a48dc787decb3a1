import { describe, expect, test } from 'bun:test'
import { startTestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { recordSettingOnInsert } from '../../support/setting-seen-by-insert.ts'

/** The synchronous_commit each capture insert ran with, as seen from inside it by a trigger. */
async function commitModes(env: Record<string, string>, backend: (typeof BACKENDS)[number]): Promise<string[]> {
  const t = await startTestApi(backend, env)
  try {
    const sql = t.database.db.sql
    const seen = await recordSettingOnInsert(sql, 'synchronous_commit', 'BEFORE')
    const gate = ((await (await t.call('POST', '/gates', { name: 'durable', live_url: 'http://l:1', shadow_url: 'http://s:1' })).json()) as { data: { id: string } }).data.id
    // Alone, then grouped: both insert paths.
    expect((await t.call('POST', `/gates/${gate}/requests`, captureBody())).status).toBe(201)
    const grouped = await Promise.all(Array.from({ length: 8 }, () => t.call('POST', `/gates/${gate}/requests`, captureBody())))
    expect(grouped.map((res) => res.status)).toEqual(Array(8).fill(201))
    return await seen()
  } finally {
    await t.stop()
  }
}

describe.each(BACKENDS)('SVC_APP_DATABASE_DURABLE_CAPTURES on %s', (backend) => {
  test('by default a capture insert commits without waiting for its WAL flush', async () => {
    expect(await commitModes({}, backend)).toEqual(Array(9).fill('off'))
  }, DATABASE_HOOK_TIMEOUT_MS)

  test('set to true, every capture insert commits synchronously', async () => {
    expect(await commitModes({ SVC_APP_DATABASE_DURABLE_CAPTURES: 'true' }, backend)).toEqual(Array(9).fill('on'))
  }, DATABASE_HOOK_TIMEOUT_MS)
})
