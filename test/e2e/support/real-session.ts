import { afterAll, afterEach, beforeAll, expect } from 'bun:test'
import type { Browser, BrowserContext, Page, Response } from 'playwright-core'
import { launchChromium, watchProblems } from './browser.ts'
import type { PageProblems } from './browser.ts'
import { scenarios } from './catalog-data.ts'
import type { ScenarioName } from './catalog-data.ts'
import { WAIT_MS } from './page-probes.ts'
import { startRealHubStack } from './real-stack.ts'
import type { RealHubStack } from './real-stack.ts'
import { createGate, postCaptures } from './seed.ts'
import type { CreatedRequest } from './seed.ts'

/** The gate the real-API tests photograph, fill and open. */
export const CATALOG = { name: 'catalog-v2 canary', live: 'http://catalog.prod.internal:8080', shadow: 'http://catalog-v2.canary.internal:8080' } as const

/**
 * What a real-API end-to-end file shares: the stack (API on PostgreSQL,
 * hub servers), one Chromium, a fresh browser context per page opened,
 * and the catalog gate with its scenario captures, made once. After each
 * test: no CSP violation and no script error on the page, then the
 * context is closed.
 */
export class RealApiSession {
  stack!: RealHubStack
  browser!: Browser
  /** The page of the last `open()`. */
  page!: Page
  #context: BrowserContext | undefined
  #problems: PageProblems | undefined
  #catalogId: string | undefined
  #captured: Record<ScenarioName, CreatedRequest> | undefined

  async start(): Promise<void> {
    this.stack = await startRealHubStack()
    this.browser = await launchChromium()
  }

  async stop(): Promise<void> {
    await this.browser?.close()
    await this.stack?.stop()
  }

  async afterTest(): Promise<void> {
    try {
      // The CSP holds on every page and no script fails.
      expect(this.#problems?.csp ?? []).toEqual([])
      expect(this.#problems?.errors ?? []).toEqual([])
    } finally {
      await this.#context?.close()
      this.#context = undefined
      this.#problems = undefined
    }
  }

  /** A new context (UTC, so a time typed into a datetime-local field is the one computed) and page at `path`. */
  open = async (path: string, hubUrl = this.stack.hub.url): Promise<Response | null> => {
    await this.#context?.close()
    this.#context = await this.browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' })
    this.#context.setDefaultTimeout(WAIT_MS)
    this.#context.setDefaultNavigationTimeout(WAIT_MS)
    this.page = await this.#context.newPage()
    this.#problems = await watchProblems(this.page)
    return this.page.goto(`${hubUrl}${path}`)
  }

  /** The API with the right key; the body parsed (undefined for a 204). */
  api = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await this.stack.api.call(method, path, body)
    return { status: res.status, body: (res.status === 204 ? undefined : await res.json()) as T }
  }

  /** The catalog gate: the one a test made through the form, else one made through the API. */
  catalogGate = async (): Promise<string> => {
    this.#catalogId ??= (await createGate(this.stack.api, CATALOG.name, CATALOG.live, CATALOG.shadow)).id
    return this.#catalogId
  }

  adoptCatalogGate(id: string): void {
    this.#catalogId = id
  }

  /** Posts the scenario captures into the catalog gate once, as a proxy in API mode does. */
  catalogCaptures = async (): Promise<Record<ScenarioName, CreatedRequest>> => {
    if (!this.#captured) {
      const s = scenarios()
      const names = Object.keys(s) as ScenarioName[]
      const created = await postCaptures(this.stack.api, await this.catalogGate(), Object.values(s))
      this.#captured = Object.fromEntries(names.map((n, i) => [n, created[i]!])) as Record<ScenarioName, CreatedRequest>
    }
    return this.#captured
  }
}

/** A session for this test file, with its hooks registered. */
export function useRealApiSession(): RealApiSession {
  const session = new RealApiSession()
  beforeAll(() => session.start(), 120_000)
  afterAll(() => session.stop(), 30_000)
  afterEach(() => session.afterTest())
  return session
}
