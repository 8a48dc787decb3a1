/**
 * previewDiffConfig through the API on both backends: its counts against
 * a brute-force re-diff of the same captures (exported, compared one by
 * one with the candidate in the test), its window and limit, nothing
 * stored changed, one preview per gate at a time (409), and validation.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { compareResponses, compileCaptureOptions, type DiffConfig } from '../../../src/diff/index.ts'
import { diffSignature, signatureSummary, type ErrorClass } from '../../../src/insights/index.ts'
import { PREVIEW_LOCK_CLASS } from '../../../src/rediff/preview-guard.ts'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { capturedResponse, exportedCaptures, type StoredDetail } from '../../support/stored-captures.ts'
import type { DiffConfigPreview as Preview } from '../../../src/rediff/preview-tally.ts'


const MINUTE = 60_000
const HOUR = 60 * MINUTE
const REDACTED = ['body.secret']
const config = (over: Partial<DiffConfig> = {}): DiffConfig => ({ ignored_fields: [], included_fields: [], float_tolerance: 0, sort_arrays: false, ...over })

/** The preview of `captures` (most recent first) done the slow way: one plain comparison each. */
function bruteForce(captures: StoredDetail[], candidate: DiffConfig, catalog: ReadonlyMap<string, string>): Preview {
  const options = compileCaptureOptions({ diff: candidate, redactedFields: REDACTED })
  const out: Preview = { examined: 0, diffs_before: 0, diffs_after: 0, silenced: 0, surfaced: 0, signatures: [], examples: { silenced: [], surfaced: [] } }
  const signatures = new Map<string, { summary: string | null; count_before: number; count_after: number }>()
  const bump = (id: string, side: 'count_before' | 'count_after', summary?: string) => {
    const entry = signatures.get(id) ?? { summary: null, count_before: 0, count_after: 0 }
    entry[side]++
    entry.summary ??= summary ?? catalog.get(id) ?? null
    signatures.set(id, entry)
  }
  for (const c of captures) {
    out.examined++
    const failed = c.live_response.status_code === 0 || c.shadow_response.status_code === 0
    const before = failed ? 'error' : c.diff.content.length > 0 ? 'diff' : 'match'
    const after = compareResponses(capturedResponse(c.live_response), capturedResponse(c.shadow_response), options)
    if (before === 'diff') {
      out.diffs_before++
      bump(c.signature_id!, 'count_before')
    }
    if (after.kind === 'diff') {
      out.diffs_after++
      const signature = diffSignature({ method: c.method, template: c.template! }, after.ops)!
      bump(signature.id, 'count_after', signatureSummary(signature))
    }
    if (before === 'diff' && after.kind === 'match') {
      if (out.silenced < 10) out.examples.silenced.push(c.id)
      out.silenced++
    }
    if (before === 'match' && after.kind === 'diff') {
      if (out.surfaced < 10) out.examples.surfaced.push(c.id)
      out.surfaced++
    }
  }
  out.signatures = [...signatures]
    .map(([id, counts]) => ({ id, ...counts }))
    .sort((a, b) => Math.max(b.count_before, b.count_after) - Math.max(a.count_before, a.count_after) || (a.id < b.id ? -1 : 1))
    .slice(0, 100)
  return out
}

describe.each(BACKENDS)('previewDiffConfig on %s', (backend) => {
  let t: TestApi
  let gateId: string
  const now = Date.now()
  const iso = (msAgo: number) => new Date(now - msAgo).toISOString()
  const preview = (body: unknown, gate = gateId) => t.call('POST', `/gates/${gate}/diff-config/preview`, body)

  /** Every signature the gate's catalog holds, with its summary, as listSignatures gives them. */
  async function catalog(gate: string): Promise<Map<string, string>> {
    const res = await t.call('GET', `/gates/${gate}/signatures?from=${encodeURIComponent(iso(1000 * HOUR))}&limit=100`)
    type Row = { id: string; kind: 'diff' | 'error'; method: string; template: string; overflow: boolean; ops: { op: string; path: string }[]; truncated: boolean; live_error: ErrorClass | null; shadow_error: ErrorClass | null }
    const { data, pagination } = (await res.json()) as { data: Row[]; pagination: { total: number } }
    expect(pagination.total).toBeLessThanOrEqual(100)
    return new Map(data.map((s) => [s.id, signatureSummary({ ...s, liveError: s.live_error, shadowError: s.shadow_error })]))
  }

  beforeAll(async () => {
    t = await startTestApi(backend)
    gateId = ((await (await t.call('POST', '/gates', { name: 'preview', live_url: 'http://l:1', shadow_url: 'http://s:1' })).json()) as { data: { id: string } }).data.id
    expect((await t.call('PATCH', `/gates/${gateId}`, { redacted_fields: REDACTED })).status).toBe(200)
    const bodies: unknown[] = []
    for (let i = 0; i < 260; i++) {
      const at = iso((i + 1) * 20_000)
      const live = { id: i, price: 10 + (i % 3), updated_at: iso(i), tags: ['a', 'b'], secret: 'x' }
      const shadow = {
        id: i,
        price: 10 + (i % 3) + (i % 4 === 1 ? 0.25 : 0) + (i % 9 === 0 ? 5 : 0),
        updated_at: i % 2 === 0 ? iso(i + 1) : iso(i),
        tags: i % 5 === 0 ? ['b', 'a'] : ['a', 'b'],
        secret: 'y',
      }
      const path = ['/v1/items/', '/v1/orders/', '/v1/users/'][i % 3]! + (1000 + i)
      bodies.push(
        i % 17 === 0
          ? captureBody({ path, created_at: at, live, shadowStatus: 0, shadow: 'shadow: timed out after 2s' })
          : captureBody({ path, created_at: at, live, shadow }),
      )
    }
    bodies.push(captureBody({ path: '/v1/items/old', created_at: iso(30 * HOUR), live: { a: 1 }, shadow: { a: 2 } }))
    for (let i = 0; i < bodies.length; i += 20) {
      const statuses = await Promise.all(bodies.slice(i, i + 20).map(async (body) => (await t.call('POST', `/gates/${gateId}/requests`, body)).status))
      expect(statuses.every((s) => s === 201)).toBe(true)
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t?.stop())

  test.each<[string, Partial<DiffConfig>, string]>([
    ['the current config changes nothing', {}, ''],
    ['ignoring a timestamp silences its diffs', { ignored_fields: ['body.updated_at'] }, ''],
    ['a float tolerance silences small price changes', { float_tolerance: 0.5 }, ''],
    ['sorting arrays silences reorders', { sort_arrays: true, ignored_fields: ['body.**.updated_at'] }, ''],
    ['comparing only the price', { included_fields: ['body.price'] }, ''],
    ['a limit reads the most recent captures only', { ignored_fields: ['body.updated_at'] }, '&limit=37'],
    ['a window', { float_tolerance: 1 }, `&from=${iso(40 * MINUTE)}&to=${iso(10 * MINUTE)}`],
    ['a window back past the default 24 h', { ignored_fields: ['body.a'] }, `&from=${iso(48 * HOUR)}`],
  ])('%s: the counts equal a brute-force re-diff', async (_what, over, query) => {
    const params = new URLSearchParams(query.slice(1))
    const body: Record<string, unknown> = { diff_config: config(over) }
    for (const [key, value] of params) body[key] = key === 'limit' ? Number(value) : value
    const before = await exportedCaptures(t, gateId, '?from=' + iso(100 * HOUR))
    const res = await preview(body)
    expect(res.status).toBe(200)
    const got = ((await res.json()) as { data: Preview }).data
    const from = params.get('from') ?? iso(24 * HOUR)
    const to = params.get('to')
    const limit = Number(params.get('limit') ?? 1000)
    const window = `?order=desc&limit=${limit}&from=${encodeURIComponent(from)}${to ? `&to=${encodeURIComponent(to)}` : ''}`
    const expected = bruteForce(await exportedCaptures(t, gateId, window), config(over), await catalog(gateId))
    expect(got).toEqual(expected)
    // Each signature has its line, those only stored (silenced) from the gate's catalog.
    expect(got.signatures.filter((s) => s.summary === null)).toEqual([])
    if (Object.keys(over).length > 0 && !query.includes('from')) expect(got.silenced).toBeGreaterThan(0)
    // Nothing stored changed.
    expect(await exportedCaptures(t, gateId, '?from=' + iso(100 * HOUR))).toEqual(before)
  })

  test('including a field that was left out surfaces differences', async () => {
    const gate = ((await (await t.call('POST', '/gates', { name: 'surface', live_url: 'http://l:2', shadow_url: 'http://s:2' })).json()) as { data: { id: string } }).data.id
    const ignoring = config({ ignored_fields: ['body.updated_at'] })
    expect((await t.call('PATCH', `/gates/${gate}`, { diff_config: ignoring })).status).toBe(200)
    for (let i = 0; i < 5; i++) {
      const body = captureBody({ path: `/x/${i}`, created_at: iso(i * MINUTE), live: { updated_at: 'a', n: 1 }, shadow: { updated_at: 'b', n: 1 } })
      expect((await t.call('POST', `/gates/${gate}/requests`, body)).status).toBe(201)
    }
    const got = ((await (await preview({ diff_config: config() }, gate)).json()) as { data: Preview }).data
    expect(got).toMatchObject({ examined: 5, diffs_before: 0, diffs_after: 5, silenced: 0, surfaced: 5 })
    expect(got.examples.surfaced).toHaveLength(5)
    expect(got.signatures).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{16}$/), summary: 'GET /x/{id}: changed /body/updated_at', count_before: 0, count_after: 5 }])
  })

  test('one preview per gate at a time: another is a 409 conflict saying so; other gates are not held up', async () => {
    let release!: () => void
    const held = t.api.context.previews.run(gateId, () => new Promise<void>((resolve) => (release = resolve)))
    try {
      const res = await preview({ diff_config: config() })
      expect(res.status).toBe(409)
      const problem = (await res.json()) as { type: string; detail: string }
      expect(problem.type).toBe('/errors/conflict')
      expect(problem.detail).toContain('one preview per gate at a time')
      const other = ((await (await t.call('POST', '/gates', { name: 'other', live_url: 'http://l:3', shadow_url: 'http://s:3' })).json()) as { data: { id: string } }).data.id
      expect((await preview({ diff_config: config() }, other)).status).toBe(200)
    } finally {
      release()
      await held
    }
    expect((await preview({ diff_config: config() })).status).toBe(200)
  })

  if (backend === 'postgres') {
    test('the lock holds across processes: a preview held by another session is a 409', async () => {
      const other = postgres(t.database.url, { max: 1, onnotice: () => {} })
      try {
        await other`SELECT pg_advisory_lock(${PREVIEW_LOCK_CLASS}, hashtext(${gateId}::text))`
        expect((await preview({ diff_config: config() })).status).toBe(409)
        await other`SELECT pg_advisory_unlock(${PREVIEW_LOCK_CLASS}, hashtext(${gateId}::text))`
        expect((await preview({ diff_config: config() })).status).toBe(200)
      } finally {
        await other.end()
      }
    })
  }

  test.each<[string, unknown, string]>([
    ['no diff_config', {}, 'diff_config'],
    ['a diff_config without all four fields', { diff_config: { ignored_fields: [] } }, 'diff_config'],
    ['a malformed field path', { diff_config: config({ ignored_fields: ['nope.x'] }) }, 'diff_config.ignored_fields'],
    ['a negative tolerance', { diff_config: config({ float_tolerance: -1 }) }, 'diff_config.float_tolerance'],
    ['a limit of 0', { diff_config: config(), limit: 0 }, 'limit'],
    ['a limit above 10,000', { diff_config: config(), limit: 10_001 }, 'limit'],
    ['a from that is no date', { diff_config: config(), from: 'yesterday' }, 'from'],
    ['from after to', { diff_config: config(), from: new Date(now).toISOString(), to: new Date(now - HOUR).toISOString() }, 'from'],
    ['an unknown field', { diff_config: config(), colour: 'red' }, 'colour'],
  ])('%s is a 400 naming %s', async (_what, body, field) => {
    const res = await preview(body)
    expect(res.status).toBe(400)
    const problem = (await res.json()) as { type: string; detail: string }
    expect(problem.type).toBe('/errors/invalid-request-body')
    expect(problem.detail).toContain(field)
  })

  test('404 for an unknown gate, 401 without the key', async () => {
    const missing = await preview({ diff_config: config() }, crypto.randomUUID())
    expect(missing.status).toBe(404)
    expect((await fetch(`${t.url}/gates/${gateId}/diff-config/preview`, { method: 'POST', body: '{}' })).status).toBe(401)
  })
})
