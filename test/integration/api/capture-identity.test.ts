import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

type Capture = Record<string, unknown> & {
  created_at: string
  headers: Record<string, string[]>
  live_response: Record<string, unknown>
  shadow_response: Record<string, unknown>
}

describe.each(BACKENDS)('createRequest with a known id, on %s', (backend) => {
  let t: TestApi
  let gateId: string
  const post = (body: unknown) => t.call('POST', `/gates/${gateId}/requests`, body)
  const fresh = (): Capture => captureBody({ id: crypto.randomUUID(), live: { v: 1 }, shadow: { v: 2 } }) as Capture

  beforeAll(async () => {
    t = await startTestApi(backend)
    const res = await t.call('POST', '/gates', { name: 'ids', live_url: 'http://live:1', shadow_url: 'http://shadow:1' })
    gateId = ((await res.json()) as { data: { id: string } }).data.id
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  test('the same capture again (a retry) is 201 with the stored summary, stored once', async () => {
    const capture = fresh()
    const first = await post(capture)
    const again = await post(capture)
    expect([first.status, again.status]).toEqual([201, 201])
    expect(await again.json()).toEqual(await first.json())
    const list = (await (await t.call('GET', `/gates/${gateId}/requests?limit=100`)).json()) as { data: Array<{ id: string }> }
    expect(list.data.filter((r) => r.id === capture.id)).toHaveLength(1)
  })

  test.each([
    ['the method', (c: Capture) => (c.method = 'HEAD')],
    ['the path', (c: Capture) => (c.path = '/api/other')],
    ['the query', (c: Capture) => (c.raw_query = 'page=2')],
    ['created_at', (c: Capture) => (c.created_at = new Date(Date.parse(c.created_at) - 1000).toISOString())],
    ['a request header', (c: Capture) => (c.headers = { Accept: ['text/html'] })],
    ['the request body', (c: Capture) => (c.body = Buffer.from('x').toString('base64'))],
    ['live status_code', (c: Capture) => (c.live_response.status_code = 503)],
    ['shadow latency_ms', (c: Capture) => (c.shadow_response.latency_ms = 99)],
    ['the shadow body', (c: Capture) => (c.shadow_response.body = Buffer.from('{"v":3}').toString('base64'))],
    ['the live created_at', (c: Capture) => (c.live_response.created_at = '2026-01-01T00:00:00Z')],
  ])('the same id with other content (%s) is a 409 conflict; the stored capture stays', async (_, change) => {
    const capture = fresh()
    const first = (await (await post(capture)).json()) as { data: unknown }
    const other = structuredClone(capture)
    change(other)
    const res = await post(other)
    expect(res.status).toBe(409)
    const problem = (await res.json()) as { type: string; detail: string }
    expect(problem.type).toBe('/errors/conflict')
    expect(problem.detail).toContain(`a capture with id ${capture.id} exists with different content`)
    const list = (await (await t.call('GET', `/gates/${gateId}/requests?limit=100`)).json()) as { data: Array<{ id: string }> }
    expect(list.data.filter((r) => r.id === capture.id)).toEqual([first.data as { id: string }])
    // The first capture can still be retried.
    expect((await post(capture)).status).toBe(201)
  })

  test('what is not content does not count: the same instant spelt otherwise, response ids, a redacted secret, the diff', async () => {
    const capture = fresh()
    capture.created_at = '2026-06-01T10:00:00.123456Z'
    capture.headers = { Authorization: ['Bearer first-secret'] }
    expect((await post(capture)).status).toBe(201)
    const retry = structuredClone(capture)
    retry.created_at = '2026-06-01T12:00:00.123456+02:00'
    retry.headers = { Authorization: ['Bearer other-secret'] }
    retry.live_response.id = crypto.randomUUID()
    retry.diff = { content: [{ op: 'replace', path: '/body/v', value: 2 }] }
    expect((await post(retry)).status).toBe(201)
  })
})
