import { chromium } from 'playwright-core'
import type { Browser, Page } from 'playwright-core'

/** Debian's Chromium; a browser is never downloaded. */
export const CHROMIUM_PATH = '/usr/bin/chromium'
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true })
}

export interface PageProblems {
  /** Console messages and `securitypolicyviolation` events about the CSP. */
  readonly csp: string[]
  /** Uncaught errors and console errors. */
  readonly errors: string[]
  /** The browser's own "Failed to load resource" lines (an API answering 4xx, or down). */
  readonly network: string[]
}

/**
 * Records CSP violations (both the console's "Refused to …" lines and the
 * DOM's securitypolicyviolation events) and page errors.
 */
export async function watchProblems(page: Page): Promise<PageProblems> {
  const problems: PageProblems = { csp: [], errors: [], network: [] }
  page.on('console', (msg) => {
    const text = msg.text()
    if (/Content Security Policy|Refused to/i.test(text)) problems.csp.push(text)
    else if (/^Failed to load resource/.test(text)) problems.network.push(text)
    else if (msg.type() === 'error') problems.errors.push(text)
  })
  page.on('pageerror', (error) => problems.errors.push(String(error)))
  await page.exposeFunction('__reportCspViolation', (text: string) => problems.csp.push(text))
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (globalThis as unknown as { __reportCspViolation: (t: string) => void }).__reportCspViolation
      report(`${e.violatedDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`)
    })
  })
  return problems
}
