import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchChromium, watchProblems } from './support/browser.ts'
import type { PageProblems } from './support/browser.ts'
import { previewOf } from './support/fake-noise.ts'
import { focused, until } from './support/page-probes.ts'
import { startHubStack } from './support/stack.ts'
import type { HubStack } from './support/stack.ts'

/**
 * Smoke test of the hub's noise and diff-settings work in Chromium against
 * the fake API (test/e2e/support/fake-noise.ts): the suggestions panel and
 * the field table's classification, the "Ignore" actions, the preview while
 * editing (its 409 and error states), save, and a re-diff's progress and
 * cancel. The real-API test (hub-real-api-noise.test.ts) checks the same
 * flows against the API's own numbers.
 */

const TIMEOUT = 60_000

let stack: HubStack
let browser: Browser
let context: BrowserContext
let page: Page
let problems: PageProblems

beforeAll(async () => {
  stack = await startHubStack()
  browser = await launchChromium()
}, TIMEOUT)

afterAll(async () => {
  await browser?.close()
  await stack?.stop()
})

afterEach(async () => {
  try {
    expect(problems.csp).toEqual([])
    expect(problems.errors).toEqual([])
  } finally {
    await context?.close()
    Object.assign(stack.api.controls, { previewConflicts: 0, previewFails: false, previewDelayMs: 0, jobStep: 40 })
  }
})

async function open(path: string) {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  problems = await watchProblems(page)
  await page.goto(`${stack.hub.url}${path}`)
}

const byName = (name: string) => stack.api.data.gates.find((g) => g.name === name)!
const previews = () => stack.api.seen.filter((s) => s.method === 'POST' && s.path.endsWith('/diff-config/preview'))
/** An element's text with its white space collapsed, as it reads. */
const text = async (selector: string) => ((await page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim()
const headline = () => text('diff-preview .headline')
const ignored = () => page.locator('diff-config-form #ignored_fields').inputValue()

describe('hub smoke (Chromium, fake API): noise, suggestions, preview, re-diff', () => {
  test('the Differences view suggests ignore rules and badges each field; "Ignore" on a suggestion opens the settings with it, previewed', async () => {
    const gate = byName('checkout-api')
    const saved = [...gate.diff_config.ignored_fields]
    await open(`/gates/${gate.id}`)
    const suggestion = page.locator('suggestion-list li[data-field="body.shipping.eta_days"]')
    await suggestion.waitFor()
    expect(await suggestion.getAttribute('data-reason')).toBe('noise')
    expect(await suggestion.locator('.badge').textContent()).toBe('noise')
    expect(await text('suggestion-list li[data-field="body.shipping.eta_days"] .why')).toMatch(/^differs in \d+ of \d+ noise checks \(25\.0%\) and in \d+ of \d+ captures/)
    // Classification as a word, not a colour alone.
    const row = page.locator('field-table tbody tr[data-op=replace][data-path="/body/shipping/eta_days"]').first()
    expect(['noise', 'real', 'unknown']).toContain((await row.locator('td.noise .badge').textContent())!)
    expect(await row.locator('td.noise .noise-rate').textContent()).toMatch(/of \d+ repeats$/)

    await suggestion.locator('button.ignore').click()
    await page.waitForURL(new RegExp(`/gates/${gate.id}/settings\\?ignore=body.shipping.eta_days$`))
    expect(await ignored()).toBe([...saved, 'body.shipping.eta_days'].join('\n'))
    // The preview is the fake API's own count for that config.
    const expected = previewOf(stack.api.data.requests.get(gate.id)!, gate, { ...gate.diff_config, ignored_fields: [...saved, 'body.shipping.eta_days'] }, Date.now() - 86_400_000, 1000)
    await until(headline, (t) => t.includes(`silence ${expected.silenced} of ${expected.diffs_before} diffs and surface ${expected.surfaced}`), 'the preview')
    // The sentence alone is announced.
    expect(await text('diff-preview span[role=status]')).toBe(await headline())
    // Nothing is saved before Save.
    expect(gate.diff_config.ignored_fields).toEqual(saved)
    expect(await page.locator('diff-config-form button[type=reset]').isEnabled()).toBe(true)

    // Discard drops the prefill and the preview.
    await page.locator('diff-config-form button[type=reset]').click()
    await until(ignored, (v) => v === saved.join('\n'), 'the saved list again')
    await page.locator('diff-preview[stage=unchanged]').waitFor()
  }, TIMEOUT)

  test('keyboard: a field row\'s Ignore and a suggestion\'s are on the Tab path and work with Enter', async () => {
    const gate = byName('checkout-api')
    await open(`/gates/${gate.id}`)
    const button = page.locator('suggestion-list button.ignore').first()
    await button.waitFor()
    await page.locator('gate-differences button', { hasText: 'Refresh' }).focus()
    await page.keyboard.press('Tab')
    expect(await focused(page)).toMatchObject({ where: 'suggestion-list > button', name: 'Ignore', visible: true })
    await page.keyboard.press('Enter')
    await page.waitForURL(/\/settings\?ignore=/)
    await page.locator('diff-preview .headline').waitFor()

    await page.goBack()
    const rowButton = page.locator('field-table tbody tr button.ignore').first()
    await rowButton.waitFor()
    await rowButton.focus()
    const label = (await rowButton.getAttribute('aria-label'))!
    expect(await focused(page)).toMatchObject({ where: 'field-table > button', name: label, visible: true })
    await page.keyboard.press('Enter')
    await page.waitForURL(/\/settings\?ignore=/)
    expect(await ignored()).toContain(label.replace(/^Ignore /, ''))
  }, TIMEOUT)

  test('"Ignore" on a field row generalises its path; editing previews the last edit; save, re-diff and its progress until done', async () => {
    const gate = byName('checkout-api')
    stack.api.controls.jobStep = 20
    await open(`/gates/${gate.id}`)
    const row = page.locator('field-table tbody tr[data-op=replace][data-path="/body/items/*/price"]').first()
    await row.waitFor()
    expect(await row.locator('button.ignore').getAttribute('aria-label')).toBe('Ignore body.items.#.price')
    await row.locator('button.ignore').click()
    await page.waitForURL(/\/settings\?ignore=body.items.%23.price$/)
    expect(await ignored()).toBe('body.**.updated_at\nheaders.X-Request-Id\nbody.items.#.price')
    await page.locator('diff-preview .headline').waitFor()

    // Typing on: the preview follows the last text, the previous request aborted.
    const textarea = page.locator('diff-config-form #ignored_fields')
    await textarea.focus()
    await page.keyboard.press('End')
    await page.keyboard.type('\nbody\nheaders')
    const candidate = { ...gate.diff_config, ignored_fields: [...gate.diff_config.ignored_fields, 'body.items.#.price', 'body', 'headers'] }
    const expected = previewOf(stack.api.data.requests.get(gate.id)!, gate, candidate, Date.now() - 86_400_000, 1000)
    // Everything but the failed shadow is silenced.
    expect(expected.silenced).toBe(expected.diffs_before - 1)
    await until(headline, (t) => t.includes(`silence ${expected.silenced} of ${expected.diffs_before} diffs and surface 0`), 'the preview of the last edit')
    expect(previews().length).toBeGreaterThanOrEqual(2)
    // Example links open captures that the change would silence.
    const examples = page.locator('diff-preview .examples.silenced a')
    expect(await examples.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual(
      expected.examples.silenced.slice(0, 5).map((id) => `/gates/${gate.id}/requests/${id}`),
    )
    await examples.first().click()
    await page.waitForURL(new RegExp(`/requests/${expected.examples.silenced[0]}$`))
    await page.locator('diff-list tbody tr').first().waitFor()
    await page.goBack()
    await until(ignored, (v) => v.endsWith('body.items.#.price'), 'the settings again, with the prefill')
    await textarea.focus()
    await page.keyboard.press('End')
    await page.keyboard.type('\nbody\nheaders')
    await until(headline, (t) => t.includes(`silence ${expected.silenced} of`), 'the preview again')

    // An invalid path: no preview, said so.
    await page.keyboard.type('\nnot-a-root')
    await page.locator('diff-preview[stage=invalid]').waitFor()
    await page.keyboard.press('Backspace', { delay: 0 })
    for (let i = 0; i < 'not-a-root'.length; i++) await page.keyboard.press('Backspace')
    await page.locator('diff-preview[stage=ready]').waitFor()

    await page.locator('diff-config-form button[type=submit]').click()
    await page.locator('diff-config-form .saved', { hasText: 'Settings saved.' }).waitFor()
    expect(gate.diff_config.ignored_fields).toEqual(candidate.ignored_fields)
    // The prefill left the URL: a reload shows the saved settings only.
    await page.waitForURL(new RegExp(`/gates/${gate.id}/settings$`))

    const gateReads = () => stack.api.seen.filter((x) => x.method === 'GET' && x.path === `/gates/${gate.id}`).length
    const readsBefore = gateReads()
    await page.locator('rediff-panel button.start').click()
    await page.locator('rediff-panel progress').waitFor()
    const job = [...stack.api.jobs.values()].at(-1)!
    await page.locator('rediff-panel .done').waitFor()
    // Done: the page reads the gate again, for its stats.
    await until(() => Promise.resolve(gateReads()), (n) => n === readsBefore + 1, 'the gate read again')
    expect(await page.locator('rediff-panel .done').textContent()).toContain(`Re-diffed ${job.total} captures`)
    expect(job.state).toBe('done')
    await page.locator('rediff-panel button.dismiss').click()
    await page.locator('rediff-panel .box').waitFor({ state: 'detached' })
  }, TIMEOUT)

  test('a re-diff can be cancelled; the progress is shown again after leaving the settings', async () => {
    const gate = byName('pricing-service')
    stack.api.controls.jobStep = 1
    await open(`/gates/${gate.id}/settings`)
    await page.locator('diff-config-form #sort_arrays').check()
    await page.locator('diff-preview .headline').waitFor()
    await page.locator('diff-config-form button[type=submit]').click()
    await page.locator('rediff-panel button.start').click()
    await until(() => text('rediff-panel p[role=status]'), (t) => t.startsWith('Re-diffing'), 'a running job')
    // Leave and come back: the job is read again.
    await page.locator('gate-page .tabs a', { hasText: 'Differences' }).click()
    await page.locator('endpoint-table tbody tr').first().waitFor()
    await page.locator('gate-page .tabs a', { hasText: 'Settings' }).click()
    await page.locator('rediff-panel progress').waitFor()
    await page.locator('rediff-panel button.cancel').click()
    await until(() => text('rediff-panel p[role=status]'), (t) => t.startsWith('Cancelled after'), 'the cancelled job')
    expect([...stack.api.jobs.values()].at(-1)!.state).toBe('cancelled')
    // A second start while one runs is the API's 409, said in words.
    await page.locator('rediff-panel button.start').click()
    await page.locator('rediff-panel progress').waitFor()
    await page.evaluate(() => sessionStorage.clear())
  }, TIMEOUT)

  test('preview: a 409 is retried and then answered; a lasting 409 and a failure say so, with Try again', async () => {
    const gate = byName('accounts-legacy')
    stack.api.controls.previewConflicts = 1
    await open(`/gates/${gate.id}/settings?ignore=body.generated_at`)
    await page.locator('diff-preview .headline').waitFor()
    expect(await headline()).toMatch(/^This change would silence \d+ of \d+ diffs? and surface \d+\.$/)

    stack.api.controls.previewConflicts = 100
    await page.locator('diff-config-form #float_tolerance').fill('0.5')
    await until(() => text('diff-preview p'), (t) => t.startsWith('Another preview of this gate is running'), 'the busy line')
    await page.locator('diff-preview p.error', { hasText: 'still running on the API' }).waitFor({ timeout: 20_000 })
    stack.api.controls.previewConflicts = 0
    await page.locator('diff-preview button', { hasText: 'Try again' }).click()
    await page.locator('diff-preview .headline').waitFor()

    stack.api.controls.previewFails = true
    await page.locator('diff-config-form #float_tolerance').fill('0.25')
    await page.locator('diff-preview p.error', { hasText: 'the database is not reachable' }).waitFor()
    stack.api.controls.previewFails = false
    await page.locator('diff-preview button', { hasText: 'Try again' }).click()
    await page.locator('diff-preview .headline').waitFor()
  }, TIMEOUT)

  test('suggestions: loading, an error with Try again, and the empty state', async () => {
    const gate = byName('pricing-service')
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    page = await context.newPage()
    problems = await watchProblems(page)
    let failing = true
    await page.route('**/suggestions?**', async (route) => {
      if (route.request().method() === 'OPTIONS' || !failing) return route.fallback()
      await route.fulfill({
        status: 503,
        headers: { 'Content-Type': 'application/problem+json', 'Access-Control-Allow-Origin': new URL(stack.hub.url).origin },
        body: JSON.stringify({ type: '/errors/unavailable', title: 'Service Unavailable', status: 503, detail: 'the database is not reachable' }),
      })
    })
    await page.goto(`${stack.hub.url}/gates/${gate.id}`)
    const section = page.locator('gate-differences section.suggestions')
    await section.locator('error-state h2').waitFor()
    // The other tables are unharmed.
    await page.locator('endpoint-table tbody tr').first().waitFor()
    failing = false
    await section.locator('error-state button', { hasText: 'Try again' }).click()
    // Too few noise checks on this gate: nothing to suggest, and why.
    await section.locator('p.empty').waitFor()
    expect(await section.locator('p.empty').textContent()).toContain('No field looks like noise in this window')
  }, TIMEOUT)
})
