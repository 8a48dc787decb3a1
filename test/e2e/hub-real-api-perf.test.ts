import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchChromium, watchProblems } from './support/browser.ts'
import type { PageProblems } from './support/browser.ts'
import { bigCatalogue, capture } from './support/catalog-data.ts'
import { WAIT_MS, until } from './support/page-probes.ts'
import { startRealHubStack } from './support/real-stack.ts'
import type { RealHubStack } from './support/real-stack.ts'
import { createGate, postCaptures, seedBulkCaptures } from './support/seed.ts'

/**
 * The hub with real volumes (docs/hub.md "Large bodies"): a gate with 100,000
 * captures in PostgreSQL, and a capture whose bodies are 1 MB of JSON
 * each, posted through the API. Figures are printed, not asserted: the box
 * is shared and noisy. What is asserted is that the pages show the right
 * thing and stay responsive.
 */

const TIMEOUT = 120_000
const CAPTURES = 100_000

let stack: RealHubStack
let browser: Browser
let context: BrowserContext | undefined
let page: Page
let problems: PageProblems
let bulkGateId: string
let big: { gateId: string; requestId: string; changed: number; items: number; bytes: number }

beforeAll(async () => {
  stack = await startRealHubStack()
  browser = await launchChromium()
  bulkGateId = (await createGate(stack.api, 'catalog-bulk', 'http://catalog.prod.internal', 'http://catalog-bulk.shadow.internal')).id
  const seeded = performance.now()
  await seedBulkCaptures(stack.api.database.db.sql, bulkGateId, CAPTURES)
  console.info(`seeded ${CAPTURES.toLocaleString('en')} captures in ${Math.round(performance.now() - seeded)} ms`)

  const gateId = (await createGate(stack.api, 'catalog-export', 'http://export.prod.internal', 'http://export-v2.internal')).id
  const catalogue = bigCatalogue(1_000_000)
  const [created] = await postCaptures(stack.api, gateId, [capture({ path: '/v2/products', raw_query: 'page_size=all', live: catalogue.live, shadow: catalogue.shadow })])
  big = { gateId, requestId: created!.id, changed: catalogue.changed, items: catalogue.live.items.length, bytes: JSON.stringify(catalogue.live).length }
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await stack?.stop()
}, 30_000)

afterEach(async () => {
  try {
    expect(problems.csp).toEqual([])
    expect(problems.errors).toEqual([])
  } finally {
    await context?.close()
    context = undefined
  }
})

/** What `timeClick` can wait for, checked in the page on every frame. */
type Check = { kind: 'range'; text: string } | { kind: 'expanded'; pointer: string; value: 'true' | 'false' } | { kind: 'raw' }

/**
 * A page that records its longest main-thread task (`window.__longest`)
 * and knows the checks of `timeClick` (`window.__check`).
 */
async function open(path: string) {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  context.setDefaultTimeout(WAIT_MS)
  page = await context.newPage()
  problems = await watchProblems(page)
  await page.addInitScript(() => {
    const w = window as unknown as { __longest: number; __check: (c: Check) => boolean }
    w.__longest = 0
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longest = Math.max(w.__longest, e.duration)
    }).observe({ type: 'longtask', buffered: true })
    const inside = (...tags: string[]) => {
      let root: ParentNode | null | undefined = document
      for (const t of tags) root = root?.querySelector(t)?.shadowRoot
      return root ?? undefined
    }
    w.__check = (c) => {
      switch (c.kind) {
        case 'range': {
          // The range line says which page is shown; the table is no longer dimmed.
          const gate = inside('svc-app', 'gate-page', 'gate-requests')
          const range = gate?.querySelector('page-nav')?.shadowRoot?.querySelector('.range')?.textContent?.trim()
          const table = gate?.querySelector('request-table')?.shadowRoot?.querySelector('table')
          return range === c.text && table?.getAttribute('aria-busy') === 'false'
        }
        case 'expanded': {
          const tree = inside('svc-app', 'request-page', 'response-panel[side=live]', 'body-view', 'json-view')
          return tree?.querySelector(`.row[data-pointer="${c.pointer}"] > button.toggle`)?.getAttribute('aria-expanded') === c.value
        }
        case 'raw':
          return !!inside('svc-app', 'request-page', 'response-panel[side=live]', 'body-view')?.querySelector('pre')
      }
    }
  })
  const started = Date.now()
  await page.goto(`${stack.hub.url}${path}`)
  return started
}

const longest = () => page.evaluate(() => Math.round((window as unknown as { __longest: number }).__longest))

/**
 * Clicks and measures, in the page, from the click event to the first
 * frame where `check` holds: what the user waits for. Fails after WAIT_MS.
 */
async function timeClick(click: () => Promise<void>, check: Check): Promise<number> {
  await page.evaluate(
    ([c, limit]) => {
      const w = window as unknown as { __turn: Promise<number>; __check: (c: Check) => boolean }
      w.__turn = new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not done within ${limit} ms: ${JSON.stringify(c)}`)), limit)
        document.addEventListener(
          'click',
          (event) => {
            const t0 = event.timeStamp
            const frame = () => {
              if (!w.__check(c)) return void requestAnimationFrame(frame)
              clearTimeout(timer)
              resolve(performance.now() - t0)
            }
            requestAnimationFrame(frame)
          },
          { capture: true, once: true },
        )
      })
    },
    [check, WAIT_MS] as const,
  )
  await click()
  return Math.round(await page.evaluate(() => (window as unknown as { __turn: Promise<number> }).__turn))
}

/** The last listRequests call the page made: its duration in the browser (network + API). */
const lastListCall = () =>
  page.evaluate(() => {
    const calls = performance.getEntriesByType('resource').filter((e) => e.name.includes('/requests'))
    return Math.round(calls.at(-1)?.duration ?? -1)
  })

const range = () => page.locator('gate-page page-nav .range').textContent().then((t) => t?.trim() ?? '')

describe('hub on the real API with real volumes (Chromium, PostgreSQL)', () => {
  test('a gate with 100,000 captures pages smoothly', async () => {
    const started = await open(`/gates/${bulkGateId}/requests`)
    await until(range, (r) => r === '1–50 of 100,000 requests', 'the first page')
    console.info(`gate page with ${CAPTURES.toLocaleString('en')} captures: first page shown ${Date.now() - started} ms after navigation, longest task ${await longest()} ms`)
    expect(await page.locator('gate-page stats-cards .card', { hasText: 'Requests, last 24 h' }).locator('dd').first().textContent()).toBe('100,000')

    const shows = (text: string): Check => ({ kind: 'range', text })
    await page.evaluate(() => void ((window as unknown as { __longest: number }).__longest = 0))
    const nav = (name: string) => page.locator('gate-page page-nav button', { hasText: name })
    const rows: { step: string; ms: number; api: number }[] = []
    for (let i = 1; i <= 5; i++) {
      const ms = await timeClick(() => nav('Next').click(), shows(`${i * 50 + 1}–${(i + 1) * 50} of 100,000 requests`))
      rows.push({ step: `next → page ${i + 1}`, ms, api: await lastListCall() })
    }
    rows.push({ step: 'last page', ms: await timeClick(() => page.locator('gate-page page-nav button[aria-label="Last page"]').click(), shows('99,951–100,000 of 100,000 requests')), api: await lastListCall() })
    rows.push({ step: 'previous', ms: await timeClick(() => nav('Previous').click(), shows('99,901–99,950 of 100,000 requests')), api: await lastListCall() })
    rows.push({ step: 'first page', ms: await timeClick(() => page.locator('gate-page page-nav button[aria-label="First page"]').click(), shows('1–50 of 100,000 requests')), api: await lastListCall() })
    rows.push({ step: 'has_diff=true', ms: await timeClick(() => page.locator('request-filters .chip:has(input[name=has_diff][value=true])').click(), shows('1–50 of 10,000 requests')), api: await lastListCall() })
    rows.push({ step: 'has_diff + PUT', ms: await timeClick(() => page.locator('request-filters .chip:has(input[value=PUT])').click(), shows('1–50 of 2,500 requests')), api: await lastListCall() })
    await until(() => page.locator('request-table tbody tr').count(), (n) => n === 50, '50 rows')

    const ms = rows.map((r) => r.ms).sort((a, b) => a - b)
    console.info(
      `paging ${CAPTURES.toLocaleString('en')} captures, click → table updated (ms; api = the listRequests call as the browser saw it):\n` +
        rows.map((r) => `  ${r.step.padEnd(20)} ${String(r.ms).padStart(5)} ms   api ${String(r.api).padStart(4)} ms`).join('\n') +
        `\n  median ${ms[Math.floor(ms.length / 2)]} ms, max ${ms.at(-1)} ms, longest main-thread task while paging ${await longest()} ms`,
    )
  }, TIMEOUT)

  test('a 1 MB JSON body renders without freezing the tab', async () => {
    const started = await open(`/gates/${big.gateId}/requests/${big.requestId}`)
    const pointer = `/items/${big.changed}/price/amount`
    await page.locator(`response-panel[side=shadow] json-view li.m-changed > .row[data-pointer="${pointer}"]`).waitFor()
    const shown = Date.now() - started
    const detailCall = await page.evaluate(() => Math.round(performance.getEntriesByType('resource').find((e) => /\/requests\/[0-9a-f-]{36}$/.test(e.name))?.duration ?? -1))

    // Only a window of the items is in the DOM, plus the changed one, on each side.
    const rows = await page.locator('response-panel[side=live] json-view .row').count()
    expect(rows).toBeLessThan(1500)
    expect(await page.locator(`response-panel[side=live] json-view li.m-changed > .row[data-pointer="${pointer}"]`).count()).toBe(1)
    const longestLoad = await longest()

    // Still responsive: folding the 2,300-item array is handled at once.
    const items = page.locator('response-panel[side=live] json-view .row[data-pointer="/items"] > button.toggle')
    const fold = await timeClick(() => items.click(), { kind: 'expanded', pointer: '/items', value: 'false' })
    const unfold = await timeClick(() => items.click(), { kind: 'expanded', pointer: '/items', value: 'true' })
    // The raw view of the same body: text cut at 100,000 characters.
    const raw = await timeClick(() => page.locator('response-panel[side=live] body-view .modes button', { hasText: 'Raw' }).click(), { kind: 'raw' })

    console.info(
      `1 MB request page (${big.items.toLocaleString('en')} items, ${big.bytes.toLocaleString('en')} bytes a body): ` +
        `highlight shown ${shown} ms after navigation (getRequest ${detailCall} ms in the browser), ${rows} tree rows, ` +
        `longest task while loading ${longestLoad} ms; fold /items ${fold} ms, unfold ${unfold} ms, raw view ${raw} ms; ` +
        `longest task overall ${await longest()} ms`,
    )
    // Generous: a tab that froze would take seconds or never answer.
    expect(fold).toBeLessThan(5_000)
    expect(unfold).toBeLessThan(5_000)
  }, TIMEOUT)
})
