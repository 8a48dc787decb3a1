/**
 * Integers past 2^53 through the API (docs/diff.md "What is compared"):
 * compared by their digits, and the diff read back from the database as
 * computed, in getRequest and in the export, where postgres.js's JSON.parse
 * rounded them to a value neither side sent.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'

describe.each(BACKENDS)('large integers through the API on %s', (backend) => {
  let t: TestApi
  let gateId: string

  beforeAll(async () => {
    t = await startTestApi(backend)
    const res = await t.call('POST', '/gates', { name: 'ids', live_url: 'http://live.ids', shadow_url: 'http://shadow.ids' })
    gateId = ((await res.json()) as { data: { id: string } }).data.id
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t?.stop())

  test('ids that differ in their last digit are a diff, and the diff reads back with the exact digits', async () => {
    const body = captureBody({}) as Record<string, { body: string }>
    body.live_response!.body = Buffer.from('{"id":9007199254740993,"same":12345678901234567890}').toString('base64')
    body.shadow_response!.body = Buffer.from('{"id":9007199254740995,"same":12345678901234567890}').toString('base64')
    const created = await t.call('POST', `/gates/${gateId}/requests`, body)
    expect(created.status).toBe(201)
    const { id, has_diff } = ((await created.json()) as { data: { id: string; has_diff: boolean } }).data
    expect(has_diff).toBe(true)
    const detail = await (await t.call('GET', `/gates/${gateId}/requests/${id}`)).text()
    expect(detail).toContain('{"op":"replace","path":"/body/id","value":9007199254740995}')
    expect(detail).not.toContain('"/body/same"')
    const exported = await (await t.call('GET', `/gates/${gateId}/requests/export`)).text()
    expect(exported).toContain('"value":9007199254740995')
  })
})
