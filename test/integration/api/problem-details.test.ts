import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

type Capture = Record<string, unknown> & { live_response: Record<string, unknown> }
type Problem = { type: string; status: number; detail: string; instance?: string }

const SECRET = 'SECRET-7f3a9c'

/**
 * Problems name the field and the rule, never the value (a header map with
 * Authorization, a body, a query string, a path): arktype's "(was …)" used
 * to reach the detail.
 */
describe.each(BACKENDS)('problem details do not repeat values, on %s', (backend) => {
  let t: TestApi
  let gateId: string
  const post = (body: unknown) => t.call('POST', `/gates/${gateId}/requests`, body)

  beforeAll(async () => {
    t = await startTestApi(backend)
    const res = await t.call('POST', '/gates', { name: 'problems', live_url: 'http://live:1', shadow_url: 'http://shadow:1' })
    gateId = ((await res.json()) as { data: { id: string } }).data.id
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  const problemOf = async (res: Response, status = 400) => {
    expect(res.status).toBe(status)
    const text = await res.text()
    expect(text).not.toContain(SECRET)
    return JSON.parse(text) as Problem
  }

  test('a bad header value beside Authorization: the detail names headers and the rule, not the map', async () => {
    const body = captureBody({ requestHeaders: { Authorization: [`Bearer ${SECRET}`], 'X-Bad': ['a\r\nb'] } }) as Capture
    body.live_response.latency_ms = -1
    const problem = await problemOf(await post(body))
    expect(problem.detail).toBe(
      'headers must be header values without CR, LF or NUL (X-Bad); live_response.latency_ms must be an integer from 0 to 9007199254740991 (ms)',
    )
  })

  test('a header name that is not a token (it may be a whole header line) is not repeated', async () => {
    const problem = await problemOf(await post(captureBody({ requestHeaders: { [`Authorization: Bearer ${SECRET}`]: ['x'] } })))
    expect(problem.detail).toBe('headers must be header names that are tokens (RFC 9110)')
  })

  test.each([
    ['a NUL in the path', (b: Capture) => (b.path = `/a\u0000${SECRET}`), 'path must be text without NUL characters'],
    ['a NUL in the query', (b: Capture) => (b.raw_query = `token=${SECRET}\u0000`), 'raw_query must be text without NUL characters'],
    ['a body that is not base64', (b: Capture) => (b.body = `${SECRET}!`), 'body must be base64-encoded'],
    ['a bad created_at', (b: Capture) => (b.created_at = SECRET), 'created_at must be an RFC 3339 date-time (years 1000 to 9999)'],
    ['a string status', (b: Capture) => (b.live_response.status_code = SECRET), 'live_response.status_code must be a number'],
    ['an unknown field', (b: Capture) => (b.extra = SECRET), 'unknown field extra (only the documented fields are accepted)'],
  ])('%s: the field and the rule only', async (_, spoil, detail) => {
    const body = captureBody() as Capture
    spoil(body)
    expect((await problemOf(await post(body))).detail).toBe(detail)
  })

  test('a submitted diff operation that fits no branch names each branch\'s rule, not the value', async () => {
    const body = captureBody({ diff: [{ op: 'remove', path: '/body/a', value: SECRET }] })
    const problem = await problemOf(await post(body))
    expect(problem.detail).toBe('diff.content[0].op must be "add" or "replace" or diff.content[0].value must be removed')
  })

  test('a bad retention or a bad name in updateGate', async () => {
    const problem = await problemOf(await t.call('PATCH', `/gates/${gateId}`, { retention: SECRET }))
    expect(problem.detail).toBe('retention must be a duration such as "300ms", "1.5h" or "2h45m" or ""')
    expect((await problemOf(await t.call('PATCH', `/gates/${gateId}`, { name: `\u0000${SECRET}` }))).detail).toContain('name must be')
  })

  test('a bad query parameter: its name and rule, never the query', async () => {
    const problem = await problemOf(await t.call('GET', `/gates/${gateId}/requests?from=${SECRET}&limit=1`))
    expect(problem.detail).toBe('from must be an RFC 3339 date-time such as 2026-01-02T15:04:05Z (years 1000 to 9999)')
    const unknown = await problemOf(await t.call('GET', `/gates/${gateId}/requests?token=${SECRET}&Bearer%20${SECRET}`))
    expect(unknown.detail).toBe(
      'unknown field token (only the documented fields are accepted); an unknown field (only the documented fields are accepted; its name is not repeated)',
    )
  })

  test('a NUL in a path parameter: neither the path nor the query in the detail', async () => {
    const res = await t.call('GET', `/gates/%00${SECRET}/requests?token=${SECRET}`)
    expect(res.status).toBe(400)
    const problem = (await res.json()) as Problem
    expect(problem.detail).toBe('gate_id must be a UUID')
    // `instance` is the request path (docs/reference/api.md "Problems"), never
    // the query.
    expect(problem.instance).toBe(`/gates/%00${SECRET}/requests`)
  })

  test('an unknown path or a wrong method: the detail does not repeat the path', async () => {
    const missing = (await (await t.call('GET', `/reset/${SECRET}`)).json()) as Problem
    expect(missing).toMatchObject({ status: 404, detail: 'no route matches GET on this path' })
    const wrong = (await (await t.call('PUT', `/gates/${gateId}`)).json()) as Problem
    expect(wrong).toMatchObject({ status: 405, detail: 'PUT is not allowed on this path; allowed: GET, HEAD, PATCH, DELETE' })
  })
})
