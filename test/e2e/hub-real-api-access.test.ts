import { describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { focused, tabStops, unlabelledControls, until } from './support/page-probes.ts'
import { useRealApiSession } from './support/real-session.ts'

/**
 * The hub on the real API (Chromium, PostgreSQL): keyboard use, focus and
 * labels (docs/hub.md "Accessibility"), and what a wrong or missing key shows.
 */

/** Per test: a browser on a loaded two-vCPU box, plus several page loads. */
const TIMEOUT = 90_000

const session = useRealApiSession()
const { catalogGate, catalogCaptures } = session
let page: Page

async function open(path: string, hubUrl?: string) {
  const response = await session.open(path, hubUrl)
  page = session.page
  return response
}

describe('hub on the real API: keyboard and labels', () => {
  test('keyboard: tab order and visible focus on the overview, forms by keyboard alone, every control labelled', async () => {
    const gateId = await catalogGate()
    const c = await catalogCaptures()
    await open('/')
    await page.locator('gate-table tbody tr').first().waitFor()
    const rows = await page.locator('gate-table tbody tr a').allTextContents()
    const stops = await tabStops(page, 10 + rows.length * 2 + 1)
    expect(stops.map((s) => s?.name ?? s)).toEqual([
      'Skip to content',
      'Shadow Hub',
      'Gates',
      'New gate',
      expect.stringContaining('Name'), // the search field select
      '',
      'Name',
      'Live URL',
      'Shadow URL',
      'Created',
      ...rows.flatMap((name) => [name, `Delete gate ${name}`]),
      expect.stringContaining('50'), // page size
    ])
    expect(stops.filter((s) => !s?.visible)).toEqual([])
    expect(stops[5]?.where).toBe('overview-page > input#search')

    // New gate by keyboard: Enter opens the form with focus in it, Enter submits.
    await page.locator('overview-page button[aria-controls=new-gate]').focus()
    await page.keyboard.press('Enter')
    await until(() => focused(page), (f) => f?.where === 'gate-form > input#name', 'focus in the name field')
    await page.keyboard.type('keyboard-gate')
    await page.keyboard.press('Tab')
    await page.keyboard.type('http://kbd.live.internal')
    await page.keyboard.press('Tab')
    await page.keyboard.type('http://kbd.shadow.internal')
    await page.keyboard.press('Enter')
    await page.waitForURL(/\/gates\/[0-9a-f-]{36}$/)
    // Focus moves to the new page's heading.
    await until(() => focused(page), (f) => f?.where === 'gate-page > h1', 'focus on the heading')
    expect(await unlabelledControls(page)).toEqual([])

    // The diff filter is a radio group: arrow keys choose.
    await page.goto(`${session.stack.hub.url}/gates/${gateId}/requests`)
    await page.locator('request-table tbody tr').first().waitFor()
    expect(await unlabelledControls(page)).toEqual([])
    await page.locator('request-filters input[name=has_diff][value=any]').focus()
    await page.keyboard.press('ArrowRight')
    await page.waitForURL(/\?has_diff=true$/)

    // The request page: a JSON tree is one Tab stop; arrows move and fold.
    await page.goto(`${session.stack.hub.url}/gates/${gateId}/requests/${c.renamed.id}`)
    await page.locator('diff-list tbody tr').first().waitFor()
    expect(await unlabelledControls(page)).toEqual([])
    const tree = page.locator('response-panel[side=live] json-view')
    expect(await tree.locator('button.toggle[tabindex="0"]').count()).toBe(1)
    await tree.locator('button.toggle[tabindex="0"]').focus()
    await page.keyboard.press('ArrowDown')
    const price = await until(() => focused(page), (f) => f?.name.startsWith('Collapse price') === true, 'focus on the price toggle')
    expect(price?.visible).toBe(true)
    await page.keyboard.press('ArrowLeft')
    await tree.locator('.row[data-pointer="/price"] button.toggle[aria-expanded=false]').waitFor()
    expect(await tree.locator('button.toggle[tabindex="0"]').count()).toBe(1)
    await page.keyboard.press('Tab')
    expect((await focused(page))?.where).not.toBe('json-view > button')
  }, TIMEOUT)
})

describe('hub on the real API: keys', () => {
  test('a refused key: the 401 state names the setting; another key typed in works', async () => {
    const wrong = await session.stack.startHub('wrong-key-0123456789abcdef')
    await open('/', wrong.url)
    await page.locator('error-state h2').waitFor()
    expect(await page.locator('error-state h2').textContent()).toBe('The API refused the key')
    const hint = await page.locator('error-state p').first().textContent()
    expect(hint).toContain("hub server's SVC_APP_API_KEY does not match the API's")
    // The API's own Problem detail reached the page: the 401 carried CORS headers.
    expect(await page.locator('error-state p.muted').textContent()).toMatch(/^API: /)

    await page.locator('error-state button', { hasText: 'Enter another key' }).click()
    await page.locator('key-prompt input#key').fill(session.stack.key)
    await page.keyboard.press('Enter')
    await page.locator('gate-table tbody tr').first().waitFor()
    const stored = await page.evaluate(() => Object.values({ ...sessionStorage }))
    expect(stored).toEqual([session.stack.key])
  }, TIMEOUT)

  test('no key configured: the prompt, then the real API with the typed key', async () => {
    const keyless = await session.stack.startHub('')
    await open('/', keyless.url)
    // The prompt names where the key will go: the API, not the hub.
    expect(await page.locator('key-prompt code').nth(1).textContent()).toBe(session.stack.api.url)
    expect(session.stack.api.url).not.toBe(keyless.url)
    await page.locator('key-prompt input#key').fill(session.stack.key)
    await page.locator('key-prompt button[type=submit]').click()
    await page.locator('gate-table tbody tr').first().waitFor()
    expect(await page.evaluate(() => localStorage.length)).toBe(0)
  }, TIMEOUT)
})
