import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

type Detail = {
  id: string
  path: string
  headers: Record<string, string[]>
  body: string
  live_response: { body: string; headers: Record<string, string[]> }
  shadow_response: { body: string; headers: Record<string, string[]> }
  diff: { content: Array<{ op: string; path: string; value?: unknown }> }
}
type Problem = { type: string; status: number; detail?: string; capture_rejected?: unknown }

/** Every string in a JSON value (keys too) is well-formed UTF-16: what jsonb can hold. */
function allWellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed()
  if (Array.isArray(value)) return value.every(allWellFormed)
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, v]) => key.isWellFormed() && allWellFormed(v))
  }
  return true
}

/**
 * Raises `code` from the database for a capture with the given path, as a
 * database does for a row it refuses (a constraint, an index row too large)
 * or when it is unwell (a cancelled query, too many connections).
 */
async function raiseFor(t: TestApi, path: string, code: string): Promise<void> {
  const name = `raise_${code.toLowerCase()}`
  await t.database.db.sql.unsafe(`
    CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.path = '${path}' THEN RAISE EXCEPTION 'refused by the test (SECRET-IN-MESSAGE)' USING ERRCODE = '${code}'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER ${name} BEFORE INSERT ON requests FOR EACH ROW EXECUTE FUNCTION ${name}();`)
}

describe.each(BACKENDS)('what a capture holds is stored, or refused as the client\'s, on %s', (backend) => {
  let t: TestApi
  let gateId: string
  const post = (body: unknown) => t.call('POST', `/gates/${gateId}/requests`, body)
  const detail = async (id: string) =>
    ((await (await t.call('GET', `/gates/${gateId}/requests/${id}`)).json()) as { data: Detail }).data
  const created = async (body: unknown) => {
    const res = await post(body)
    expect(res.status).toBe(201)
    return detail(((await res.json()) as { data: { id: string } }).data.id)
  }

  beforeAll(async () => {
    t = await startTestApi(backend)
    const res = await t.call('POST', '/gates', { name: 'odd', live_url: 'http://live:1', shadow_url: 'http://shadow:1' })
    gateId = ((await res.json()) as { data: { id: string } }).data.id
    await raiseFor(t, '/refused-22003', '22003')
    await raiseFor(t, '/refused-54000', '54000')
    await raiseFor(t, '/refused-23514', '23514')
    for (const code of ['53300', '40P01', '57014', 'XX000']) await raiseFor(t, `/unwell-${code}`, code)
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t.stop()
  })

  test('a lone surrogate in a body string is stored: 201, the body byte-exact, the diff with U+FFFD', async () => {
    const body = captureBody({ live: { a: 'x' }, shadow: { a: '\ud800' } }) as { shadow_response: { body: string } }
    const stored = await created(body)
    expect(stored.shadow_response.body).toBe(body.shadow_response.body)
    expect(Buffer.from(stored.shadow_response.body, 'base64').toString()).toBe('{"a":"\\ud800"}')
    expect(stored.diff.content).toEqual([{ op: 'replace', path: '/body/a', value: '\ufffd' }])
  })

  test('in a key, deep down, in headers, in the path and in a submitted diff: stored too', async () => {
    const fromBody = await created(
      captureBody({
        path: '/a\udc00b',
        raw_query: 'q=\ud83d',
        requestHeaders: { 'X-Half': ['\ud83d', 'x\udc00y'] },
        live: { list: [{}] },
        shadow: { list: [{ '\udc00k': ['\udbff'] }] },
        liveHeaders: { 'Content-Type': ['application/json'], 'X-Odd': ['\udfff'] },
      }),
    )
    expect(fromBody.path).toBe('/a\ufffdb')
    expect(fromBody.headers['X-Half']).toEqual(['\ufffd', 'x\ufffdy'])
    expect(fromBody.live_response.headers['X-Odd']).toEqual(['\ufffd'])
    expect(fromBody.diff.content).toContainEqual({ op: 'add', path: '/body/list/0/\ufffdk', value: ['\ufffd'] })

    const submitted = await created(captureBody({ diff: [{ op: 'add', path: '/body/\ud800', value: { '\u0000': '\udc00\u0000' } }] }))
    expect(submitted.diff.content).toEqual([{ op: 'add', path: '/body/\ufffd', value: { '\ufffd': '\ufffd\ufffd' } }])
  })

  test('property: any strings with lone surrogates and NULs, as keys and values, are stored and read back well-formed', async () => {
    const unit = fc.oneof(
      fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\u0000', '\\', '"', 'u', '😀'),
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    )
    const text = fc.array(unit, { maxLength: 6 }).map((units) => units.join(''))
    await fc.assert(
      fc.asyncProperty(fc.dictionary(text, text, { maxKeys: 3 }), text, async (shadow, header) => {
        const body = captureBody({ live: { fixed: true }, shadow, requestHeaders: { 'X-Value': [header.replace(/[\r\n\0]/g, '')] } }) as {
          shadow_response: { body: string }
        }
        const res = await post(body)
        expect(res.status).toBe(201)
        const stored = await detail(((await res.json()) as { data: { id: string } }).data.id)
        expect(stored.shadow_response.body).toBe(body.shadow_response.body)
        expect(allWellFormed(stored.diff.content)).toBe(true)
        expect(allWellFormed(stored.headers)).toBe(true)
      }),
      { numRuns: 25 },
    )
  })

  test('a value the database refuses for one row (SQLSTATE class 22) is a 400 that does not repeat it', async () => {
    const res = await post(captureBody({ path: '/refused-22003' }))
    expect(res.status).toBe(400)
    const problem = (await res.json()) as Problem
    expect(problem.type).toBe('/errors/invalid-request-body')
    expect(problem.detail).toBe('the capture cannot be stored: a number is out of the range the database can store')
  })

  test.each(['54000', '23514'])(
    'a 500 caused by the capture itself (the database refusing its row, SQLSTATE %s) is marked capture_rejected',
    async (code) => {
      const res = await post(captureBody({ path: `/refused-${code}` }))
      expect(res.status).toBe(500)
      const problem = (await res.json()) as Problem
      expect(problem).toMatchObject({ type: '/errors/internal', status: 500, capture_rejected: true })
      expect(JSON.stringify(problem)).not.toContain('SECRET-IN-MESSAGE')
      expect(t.logs.some((line) => line.includes('unexpected error') && line.includes('SECRET-IN-MESSAGE'))).toBe(true)
    },
  )

  test.each(['53300', '40P01', '57014', 'XX000'])('a 500 of a database that is unwell (SQLSTATE %s) is not marked', async (code) => {
    const res = await post(captureBody({ path: `/unwell-${code}` }))
    expect(res.status).toBe(500)
    const problem = (await res.json()) as Problem
    expect(problem.type).toBe('/errors/internal')
    expect('capture_rejected' in problem).toBe(false)
  })

  test('a database that is gone gives 500s that are not marked capture_rejected', async () => {
    await t.database.drop()
    const res = await post(captureBody({ path: '/after-the-database' }))
    expect(res.status).toBe(500)
    expect('capture_rejected' in ((await res.json()) as Problem)).toBe(false)
  })
})
