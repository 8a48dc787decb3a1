import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

type Problem = { type: string; detail: string }

/**
 * String filters are plain substrings: a comma is a legal character of a
 * path, a name or a URL (only listRequests' `method` is a list), and a
 * value that looks like JSON is text too.
 */
describe.each(BACKENDS)('query filters read as written, on %s', (backend) => {
  let t: TestApi
  let gateId: string
  const HOUR = 3_600_000
  const list = async (path: string) => {
    const res = await t.call('GET', path)
    expect(res.status).toBe(200)
    return ((await res.json()) as { data: Array<Record<string, string>> }).data
  }

  beforeAll(async () => {
    t = await startTestApi(backend)
    for (const [name, live, shadow] of [
      ['a,b', 'http://live:1/x,y', 'http://shadow:1/p,q'],
      ['[1]', 'http://live:2/{a}', 'http://shadow:2/[z]'],
      ['plain', 'http://live:3', 'http://shadow:3'],
    ]) {
      const res = await t.call('POST', '/gates', { name, live_url: live, shadow_url: shadow })
      expect(res.status).toBe(201)
      if (name === 'plain') gateId = ((await res.json()) as { data: { id: string } }).data.id
    }
    for (const path of ['/a=,b', '/list/1,2', '/json/[1]', '/json/{"a":1}', '/other']) {
      expect((await t.call('POST', `/gates/${gateId}/requests`, captureBody({ path }))).status).toBe(201)
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  test.each([
    ['?path=%3D%2C', ['/a=,b']],
    ['?path==,', ['/a=,b']],
    ['?path=1,2', ['/list/1,2']],
    ['?path=%5B1%5D', ['/json/[1]']],
    ['?path=[1]', ['/json/[1]']],
    ['?path={"a":1}', ['/json/{"a":1}']],
    ['?path=,', ['/list/1,2', '/a=,b']],
  ])('listRequests %s', async (query, paths) => {
    expect((await list(`/gates/${gateId}/requests${query}`)).map((r) => r.path)).toEqual(paths)
  })

  test.each([
    ['name', '?name=a,b', ['a,b']],
    ['name', '?name=a%2Cb', ['a,b']],
    ['name', '?name=[1]', ['[1]']],
    ['live_url', '?live_url=x,y', ['a,b']],
    ['live_url', '?live_url=%7Ba%7D', ['[1]']],
    ['shadow_url', '?shadow_url=p%2Cq', ['a,b']],
    ['shadow_url', '?shadow_url=[z]', ['[1]']],
  ])('listGates %s: %s', async (_, query, names) => {
    expect((await list(`/gates${query}`)).map((g) => g.name)).toEqual(names)
  })

  test('method stays a comma-separated list, or repeated', async () => {
    expect(await list(`/gates/${gateId}/requests?method=GET,POST`)).toHaveLength(5)
    expect(await list(`/gates/${gateId}/requests?method=POST&method=GET`)).toHaveLength(5)
    expect(await list(`/gates/${gateId}/requests?method=POST`)).toHaveLength(0)
  })

  test.each(['path', 'name'])('%s given twice is a 400 naming it', async (name) => {
    const where = name === 'path' ? `/gates/${gateId}/requests` : '/gates'
    const res = await t.call('GET', `${where}?${name}=a&${name}=b`)
    expect(res.status).toBe(400)
    expect(((await res.json()) as Problem).detail).toBe(`${name} must be given once`)
  })

  test.each([`/gates/GATE/requests?path=a%00b`, '/gates?name=%00', '/gates?live_url=a%00', '/gates?shadow_url=%00'])(
    'a NUL in a filter is a 400 naming it, not a 500: %s',
    async (path) => {
      const res = await t.call('GET', path.replace('GATE', gateId))
      expect(res.status).toBe(400)
      expect(((await res.json()) as Problem).detail).toMatch(/^(path|name|live_url|shadow_url) must be text without NUL characters$/)
    },
  )

  test('from after to is a 400 naming both; from equal to to is fine', async () => {
    const now = Date.now()
    const from = encodeURIComponent(new Date(now).toISOString())
    const to = encodeURIComponent(new Date(now - HOUR).toISOString())
    const res = await t.call('GET', `/gates/${gateId}/requests?from=${from}&to=${to}`)
    expect(res.status).toBe(400)
    const problem = (await res.json()) as Problem
    expect(problem.type).toBe('/errors/invalid-parameter')
    expect(problem.detail).toBe('from must not be after to (both are inclusive bounds of created_at)')
    expect((await t.call('GET', `/gates/${gateId}/requests?from=${from}&to=${from}`)).status).toBe(200)
  })
})
