/**
 * Swagger UI on the real API in Chromium: the page, its assets, the
 * description and the favicon the browser asks for by itself all load
 * without a key, with no console error, and the operations render.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { startTestApi, type TestApi } from '../support/api-server.ts'
import { waitFor } from '../support/upstreams.ts'
import { launchChromium } from './support/browser.ts'

/** A browser start and a page load on a loaded two-vCPU box. */
const TIMEOUT = 90_000

let api: TestApi
let browser: Browser

beforeAll(async () => {
  api = await startTestApi('postgres')
  browser = await launchChromium()
}, TIMEOUT)

afterAll(async () => {
  await browser?.close()
  await api?.stop()
})

describe('Swagger UI in Chromium', () => {
  test('loads with no console error and renders the operations', async () => {
    const page = await browser.newPage()
    try {
      const consoleErrors: string[] = []
      const failed: string[] = []
      page.on('console', (msg) => {
        if (msg.type() === 'error') consoleErrors.push(msg.text())
      })
      page.on('pageerror', (error) => consoleErrors.push(String(error)))
      page.on('response', (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${new URL(response.url()).pathname}`)
      })
      await page.goto(api.url + '/swagger')
      await page.locator('.opblock').first().waitFor()
      const operations = await page.locator('.opblock-summary-path').allTextContents()
      expect(operations).toContain('/gates/{gate_id}/requests')
      expect(operations.length).toBeGreaterThanOrEqual(9)
      // The browser asks for the favicon on its own, outside the page's
      // requests: its answer is read from the API's log, and a fetch from
      // the page after it lets its console line, if any, arrive first.
      const favicon = await waitFor(
        () => api.logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((r) => r['request.path'] === '/favicon.ico'),
        10_000,
        'the browser to ask for /favicon.ico',
      )
      expect(favicon['response.status']).toBe(200)
      expect(await page.evaluate(async () => (await fetch('/health/live')).status)).toBe(200)
      expect(failed).toEqual([])
      expect(consoleErrors).toEqual([])
    } finally {
      await page.close()
    }
  }, TIMEOUT)
})
