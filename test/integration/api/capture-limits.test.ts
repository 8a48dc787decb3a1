import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { CAPTURE_METADATA_ALLOWANCE } from '../../../src/api/capture-limits.ts'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

type Capture = Record<string, unknown> & { live_response: Record<string, unknown>; shadow_response: Record<string, unknown> }
type Problem = { type: string; detail: string }

const HOUR = 3_600_000
const MAX_BODY = 1000
const inHours = (hours: number) => new Date(Date.now() + hours * HOUR).toISOString()
const bytes = (n: number) => Buffer.alloc(n, 'a').toString('base64')

describe.each(BACKENDS)('createRequest bounds on %s', (backend) => {
  let t: TestApi
  let gateId: string
  const post = (body: unknown) => t.call('POST', `/gates/${gateId}/requests`, body)

  beforeAll(async () => {
    t = await startTestApi(backend, { SVC_APP_MAX_BODY_SIZE: String(MAX_BODY), SVC_APP_MAX_CLOCK_SKEW: '2h' })
    const res = await t.call('POST', '/gates', { name: 'bounds', live_url: 'http://live:1', shadow_url: 'http://shadow:1' })
    gateId = ((await res.json()) as { data: { id: string } }).data.id
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  const refused = async (body: unknown, status: number, field: string) => {
    const res = await post(body)
    expect(res.status).toBe(status)
    expect(((await res.json()) as Problem).detail).toContain(field)
  }

  test.each([
    ['live_response.latency_ms', 2 ** 63],
    ['live_response.latency_ms', 2 ** 53],
    ['shadow_response.latency_ms', 1e300],
    ['shadow_response.latency_ms', -1],
  ])('%s = %p is a 400 naming the field', async (field, value) => {
    const body = captureBody() as Capture
    const [side] = field.split('.') as ['live_response' | 'shadow_response']
    body[side].latency_ms = value
    await refused(body, 400, field)
  })

  test('latency_ms up to 2^53 - 1 is stored exactly', async () => {
    const body = captureBody() as Capture
    body.live_response.latency_ms = Number.MAX_SAFE_INTEGER
    const res = await post(body)
    expect(res.status).toBe(201)
    expect(((await res.json()) as { data: { live_response: { latency_ms: number } } }).data.live_response.latency_ms).toBe(Number.MAX_SAFE_INTEGER)
  })

  test.each([
    ['live_response', 99],
    ['live_response', 600],
    ['shadow_response', 1000],
    ['shadow_response', -1],
    ['live_response', 1],
  ])('%s.status_code %p is a 400 naming the field', async (side, status) => {
    const body = captureBody() as Capture
    ;(body[side as 'live_response'] as Record<string, unknown>).status_code = status
    await refused(body, 400, `${side}.status_code`)
  })

  test.each([
    [100, 599],
    [599, 100],
    [200, 0], // a shadow that gave no response
    [0, 200], // a live that gave none: the proxy answered its client 502/504 and still reports it
  ])('statuses live %p, shadow %p are stored', async (live, shadow) => {
    expect((await post(captureBody({ liveStatus: live, shadowStatus: shadow }))).status).toBe(201)
  })

  test.each(['created_at', 'live_response.created_at', 'shadow_response.created_at'])(
    '%s more than SVC_APP_MAX_CLOCK_SKEW ahead of the server is a 400 naming it',
    async (field) => {
      const body = captureBody() as Capture
      if (field === 'created_at') body.created_at = inHours(3)
      else body[field.split('.')[0] as 'live_response'].created_at = inHours(3)
      const res = await post(body)
      expect(res.status).toBe(400)
      expect(((await res.json()) as Problem).detail).toBe(
        `${field} must not be more than 2h ahead of the server's clock (SVC_APP_MAX_CLOCK_SKEW)`,
      )
    },
  )

  test('within the skew, and any time in the past, a capture is stored', async () => {
    expect((await post(captureBody({ created_at: inHours(1) }))).status).toBe(201)
    expect((await post(captureBody({ created_at: '1999-12-31T23:59:59Z' }))).status).toBe(201)
  })

  test('SVC_APP_MAX_BODY_SIZE applies to each decoded body: three bodies at the limit are stored', async () => {
    const body = captureBody() as Capture
    body.body = bytes(MAX_BODY)
    body.live_response.body = bytes(MAX_BODY)
    body.shadow_response.body = bytes(MAX_BODY - 1)
    const res = await post(body)
    expect(res.status).toBe(201)
    const stored = await t.call('GET', `/gates/${gateId}/requests/${((await res.json()) as { data: { id: string } }).data.id}`)
    const detail = ((await stored.json()) as { data: { body: string; shadow_response: { body: string } } }).data
    expect(detail.body).toBe(bytes(MAX_BODY))
    expect(detail.shadow_response.body).toBe(bytes(MAX_BODY - 1))
  })

  test.each(['body', 'live_response.body', 'shadow_response.body'])('a decoded %s one byte over the limit is a 413 naming it', async (field) => {
    const body = captureBody() as Capture
    if (field === 'body') body.body = bytes(MAX_BODY + 1)
    else body[field.split('.')[0] as 'live_response'].body = bytes(MAX_BODY + 1)
    const res = await post(body)
    expect(res.status).toBe(413)
    const problem = (await res.json()) as Problem
    expect(problem.type).toBe('/errors/payload-too-large')
    expect(problem.detail).toBe(`${field} exceeds the limit of ${MAX_BODY} bytes once decoded (SVC_APP_MAX_BODY_SIZE)`)
  })

  test('a submission past four bodies and the metadata allowance is a 413 before it is parsed', async () => {
    const body = captureBody({ requestHeaders: { 'X-Big': ['a'.repeat(CAPTURE_METADATA_ALLOWANCE + 4 * 1336)] } })
    const res = await post(body)
    expect(res.status).toBe(413)
    expect(((await res.json()) as Problem).detail).toContain('the request body exceeds the limit')
  })

  test('other routes keep the plain limit', async () => {
    const res = await t.call('POST', '/gates', { name: 'x'.repeat(MAX_BODY), live_url: 'http://l:2', shadow_url: 'http://s:2' })
    expect(res.status).toBe(413)
  })
})
