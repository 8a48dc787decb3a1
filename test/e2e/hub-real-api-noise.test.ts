import { beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { NOISE_CAPTURES, NOISE_FIELDS, NOISE_GATE, noiseCaptures } from './support/noise-data.ts'
import { until, unlabelledControls } from './support/page-probes.ts'
import { useRealApiSession } from './support/real-session.ts'
import { createGate, postCaptures, seedBulkCaptures } from './support/seed.ts'
import type { DiffConfigPreview as Preview } from '../../src/rediff/preview-tally.ts'

/**
 * The hub's noise work in Chromium against the real API on a fresh
 * PostgreSQL database: captures posted through createRequest with live's
 * repeat, so the API classifies fields, suggests ignore rules, previews a
 * diff_config and re-diffs stored captures from its own counts; the hub
 * must show exactly what the API answers.
 */

const TIMEOUT = 120_000

const session = useRealApiSession()
const { api } = session
let page: Page
let gateId: string

interface Listed<T> {
  data: T[]
  pagination: { total: number }
}
interface FieldRow {
  op: string
  path: string
  classification: string
  noise_checks: number
}
interface Gate {
  diff_config: { ignored_fields: string[]; included_fields: string[]; float_tolerance: number; sort_arrays: boolean }
}

async function open(path: string) {
  await session.open(path)
  page = session.page
}

/** An element's text with its white space collapsed, as it reads. */
const text = async (selector: string) => ((await page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim()
const headline = () => text('diff-preview .headline')
const ignored = () => page.locator('diff-config-form #ignored_fields').inputValue()

/** The API's own preview of the gate's diff_config with `ignoredFields`. */
async function apiPreview(ignoredFields: readonly string[]): Promise<Preview> {
  const gate = (await api<{ data: Gate }>('GET', `/gates/${gateId}`)).body.data
  const res = await api<{ data: Preview }>('POST', `/gates/${gateId}/diff-config/preview`, {
    diff_config: { ...gate.diff_config, ignored_fields: ignoredFields },
    from: new Date(Date.now() - 86_400_000).toISOString(),
  })
  expect(res.status).toBe(200)
  return res.body.data
}

/**
 * Holds a row lock on one capture of the gate, in the second chunk of a
 * re-diff (500 captures a chunk, oldest first; docs/storage.md "Jobs"),
 * so a job stops there, running, with its progress readable, until
 * `release()`: progress is shown without betting on timing.
 */
async function holdCapture(gate: string, offset: number): Promise<{ release(): Promise<void> }> {
  const sql = session.stack.api.database.db.sql
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let locked!: () => void
  const isLocked = new Promise<void>((resolve) => (locked = resolve))
  const holding = sql.begin(async (tx) => {
    // Picked first, locked after: FOR UPDATE with OFFSET would lock every row it skips too.
    const [pick] = await tx`SELECT id FROM requests WHERE gate_id = ${gate} ORDER BY created_at, id OFFSET ${offset} LIMIT 1`
    await tx`SELECT 1 FROM requests WHERE id = ${pick!.id} FOR UPDATE`
    locked()
    await released
  })
  await Promise.race([isLocked, holding])
  return {
    async release() {
      release()
      await holding
    },
  }
}

const sentence = (p: Preview) => `This change would silence ${p.silenced} of ${p.diffs_before} diffs and surface ${p.surfaced}.`

beforeAll(async () => {
  gateId = (await createGate(session.stack.api, NOISE_GATE.name, NOISE_GATE.live, NOISE_GATE.shadow)).id
  await postCaptures(session.stack.api, gateId, noiseCaptures())
}, 60_000)

describe('hub on the real API: noise, suggestions, preview, re-diff', () => {
  test('Differences: the suggestions and the fields\' classification are the API\'s own', async () => {
    await open(`/gates/${gateId}`)
    await page.locator('suggestion-list li').first().waitFor()
    const suggestions = await api<Listed<{ field: string; reason: string }>>('GET', `/gates/${gateId}/suggestions?from=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}`)
    expect(suggestions.body.data.map((s) => s.field).sort()).toEqual([...NOISE_FIELDS])
    const shown = await page.locator('suggestion-list li').evaluateAll((lis) => lis.map((li) => [li.getAttribute('data-field'), li.getAttribute('data-reason')]))
    expect(shown).toEqual(suggestions.body.data.map((s) => [s.field, s.reason]))
    expect(await text(`suggestion-list li[data-field="body.generated_at"] .why`)).toBe(
      `differs in ${NOISE_CAPTURES.total} of ${NOISE_CAPTURES.total} noise checks (100%) and in ${NOISE_CAPTURES.total} of ${NOISE_CAPTURES.total} captures (100%) · on GET /v3/products/{id}`,
    )

    const fields = (await api<Listed<FieldRow>>('GET', `/gates/${gateId}/fields?limit=100`)).body.data
    const badge = (op: string, path: string) => text(`field-table tbody tr[data-op="${op}"][data-path="${path}"] td.noise .badge`)
    for (const f of fields) expect(await badge(f.op, f.path)).toBe(f.classification)
    expect(fields.find((f) => f.path === '/body/generated_at')?.classification).toBe('noise')
    expect(fields.find((f) => f.path === '/body/price')?.classification).toBe('real')
    expect(await unlabelledControls(page)).toEqual([])
  }, TIMEOUT)

  test('Ignore on a field row pre-fills its generalised path; edits preview as the API counts; nothing saved', async () => {
    await open(`/gates/${gateId}`)
    const row = page.locator('field-table tbody tr[data-op=replace][data-path="/body/request_id"]')
    await row.waitFor()
    await row.locator('button.ignore').click()
    await page.waitForURL(new RegExp(`/gates/${gateId}/settings\\?ignore=body.request_id$`))
    expect(await ignored()).toBe('body.request_id')
    // The timestamp still differs everywhere: nothing is silenced yet.
    const one = await apiPreview(['body.request_id'])
    expect(one.silenced).toBe(0)
    await until(headline, (t) => t === sentence(one), 'the preview of one field')

    // Typing the other noise field: the preview follows, as the API counts it.
    await page.locator('diff-config-form #ignored_fields').focus()
    await page.keyboard.press('End')
    await page.keyboard.type('\nbody.generated_at')
    const both = await apiPreview(['body.request_id', 'body.generated_at'])
    expect(both).toMatchObject({ examined: NOISE_CAPTURES.total, diffs_before: NOISE_CAPTURES.total, silenced: NOISE_CAPTURES.total - NOISE_CAPTURES.priced, surfaced: 0 })
    await until(headline, (t) => t === sentence(both), 'the preview of both fields')
    const hrefs = await page.locator('diff-preview .examples.silenced a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))
    expect(hrefs.length).toBeGreaterThan(0)
    const links = both.examples.silenced.map((id) => `/gates/${gateId}/requests/${id}`)
    for (const href of hrefs) expect(links).toContain(href!)
    // The kinds whose counts change, each by its one line, as the API sums them up.
    const kinds = await page.locator('diff-preview tbody tr[data-signature] code').allTextContents()
    const changed = both.signatures.filter((s) => s.count_before !== s.count_after)
    expect(kinds.length).toBeGreaterThan(0)
    for (const kind of kinds) expect(changed.map((s) => s.summary)).toContain(kind)

    // Left unsaved: the gate is as it was.
    expect((await api<{ data: Gate }>('GET', `/gates/${gateId}`)).body.data.diff_config.ignored_fields).toEqual([])
  }, TIMEOUT)

  test('a suggestion\'s Ignore all, Save, then the re-diff of the last 24 h with its progress until done; the stored diffs follow', async () => {
    await open(`/gates/${gateId}`)
    await page.locator('gate-differences button.ignore-all').click()
    await page.waitForURL(/\/settings\?ignore=.*&ignore=/)
    expect((await ignored()).split('\n').sort()).toEqual([...NOISE_FIELDS])
    const expected = await apiPreview((await ignored()).split('\n'))
    await until(headline, (t) => t === sentence(expected), 'the preview')

    await page.locator('diff-config-form button[type=submit]').click()
    await page.locator('diff-config-form .saved', { hasText: 'Settings saved.' }).waitFor()
    await page.waitForURL(new RegExp(`/gates/${gateId}/settings$`))
    expect((await api<{ data: Gate }>('GET', `/gates/${gateId}`)).body.data.diff_config.ignored_fields.sort()).toEqual([...NOISE_FIELDS])

    await page.locator('rediff-panel button.start').click()
    await page.locator('rediff-panel .done').waitFor({ timeout: 60_000 })
    expect(await text('rediff-panel .done')).toBe(`Re-diffed ${NOISE_CAPTURES.total} captures: their diffs follow the saved settings.`)
    // The stored diffs are the new ones: only the priced captures differ.
    const differing = await api<Listed<unknown>>('GET', `/gates/${gateId}/requests?has_diff=true`)
    expect(differing.body.pagination.total).toBe(NOISE_CAPTURES.priced)

    // The Differences view reads them: nothing left to suggest, the noise fields gone.
    await page.locator('rediff-panel a', { hasText: 'See the differences' }).click()
    await page.locator('field-table tbody tr').first().waitFor()
    await page.locator('gate-differences section.suggestions p.empty').waitFor()
    expect(await page.locator('field-table tbody tr[data-path="/body/generated_at"]').count()).toBe(0)
    expect(await page.locator('field-table tbody tr[data-path="/body/price"]').count()).toBe(1)
  }, TIMEOUT)

  test('a re-diff of 1,200 captures: the progress bar while it runs, Cancel, then another run to done; the job as the API tells it', async () => {
    const bulk = (await createGate(session.stack.api, 'catalog-rediff', 'http://catalog.prod.internal', 'http://catalog-next.internal')).id
    await seedBulkCaptures(session.stack.api.database.db.sql, bulk, 1_200, { spanMs: 20 * 3_600_000 })
    expect((await api<Listed<unknown>>('GET', `/gates/${bulk}/requests?has_diff=true`)).body.pagination.total).toBe(120)
    await open(`/gates/${bulk}/settings`)
    await page.locator('diff-config-form #float_tolerance').fill('5')
    await page.locator('diff-preview .headline').waitFor()
    await page.locator('diff-config-form button[type=submit]').click()
    await page.locator('diff-config-form .saved', { hasText: 'Settings saved.' }).waitFor()

    // Held in its second chunk: running, 500 done, as the API says.
    let hold = await holdCapture(bulk, 700)
    try {
      await page.locator('rediff-panel button.start').click()
      await until(() => text('rediff-panel p[role=status]'), (t) => t === 'Re-diffing: 500 of 1,200 captures (41.7%)', 'the job held at 500')
      expect(await page.locator('rediff-panel progress').evaluate((p: HTMLProgressElement) => [p.value, p.max])).toEqual([500, 1200])
      const id = (await page.evaluate((g) => sessionStorage.getItem(`svc-hub.rediff-job.${g}`), bulk))!
      const job = await api<{ data: { state: string; done: number; total: number } }>('GET', `/gates/${bulk}/jobs/${id}`)
      expect(job.body.data).toMatchObject({ state: 'running', done: 500, total: 1200 })
      // Another start while it runs is the API's 409.
      expect((await api('POST', `/gates/${bulk}/rediff`, {})).status).toBe(409)

      await page.locator('rediff-panel button.cancel').click()
      await hold.release()
      await until(() => text('rediff-panel p[role=status]'), (t) => t.startsWith('Cancelled after'), 'the cancelled job')
      expect((await api<{ data: { state: string } }>('GET', `/gates/${bulk}/jobs/${id}`)).body.data.state).toBe('cancelled')

      // Again, released this time: done, every capture re-diffed.
      hold = await holdCapture(bulk, 700)
      await page.locator('rediff-panel button.start').click()
      await until(() => text('rediff-panel p[role=status]'), (t) => t.startsWith('Re-diffing: 500 of 1,200'), 'the second job held')
      await hold.release()
      await page.locator('rediff-panel .done').waitFor({ timeout: 60_000 })
      expect(await text('rediff-panel .done')).toBe('Re-diffed 1,200 captures: their diffs follow the saved settings.')
      expect(await page.locator('rediff-panel progress').evaluate((p: HTMLProgressElement) => p.value === p.max)).toBe(true)
      // The seed's price change (49.9 to 52.9), one capture in ten, is within the new tolerance: none differs now.
      expect((await api<Listed<unknown>>('GET', `/gates/${bulk}/requests?has_diff=true`)).body.pagination.total).toBe(0)
    } finally {
      await hold.release()
    }
  }, TIMEOUT)
})
