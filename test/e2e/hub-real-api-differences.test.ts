import { beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { DIFFERENCES_GATE, ENDPOINTS, EXPECTED, differenceCaptures } from './support/differences-data.ts'
import { focused, until, unlabelledControls } from './support/page-probes.ts'
import { useRealApiSession } from './support/real-session.ts'
import { createGate, postCaptures } from './support/seed.ts'
import type { CreatedRequest } from './support/seed.ts'

/**
 * The gate page's Differences view and the signature links in a real
 * Chromium against the real API on a fresh PostgreSQL database: captures
 * posted through createRequest get their endpoints and signatures from the
 * API (docs/insights.md), and the hub shows what the API counted.
 */

/** Per test: a browser on a loaded two-vCPU box, plus several page loads. */
const TIMEOUT = 90_000

const session = useRealApiSession()
const { api } = session
let page: Page
let gateId: string
let recent: CreatedRequest[]

async function open(path: string) {
  await session.open(path)
  page = session.page
}

interface Listed<T> {
  data: T[]
  pagination: { total: number }
}
interface SignatureRow {
  id: string
  kind: string
  method: string
  template: string
  count: number
  example_request_id: string | null
}
interface EndpointRow {
  method: string
  template: string
  requests: number
  diffs: number
  errors: number
}

beforeAll(async () => {
  gateId = (await createGate(session.stack.api, DIFFERENCES_GATE.name, DIFFERENCES_GATE.live, DIFFERENCES_GATE.shadow)).id
  const { recent: bodies, older } = differenceCaptures()
  recent = await postCaptures(session.stack.api, gateId, bodies)
  await postCaptures(session.stack.api, gateId, [older])
}, 60_000)

const hourAgo = () => new Date(Date.now() - 3_600_000 - 60_000).toISOString()
const signatureRow = (summary: string) => page.locator('signature-table tbody tr', { has: page.locator('code.text', { hasText: summary }) })
const endpointRow = (key: string) => {
  const [method, template] = key.split(' ')
  return page.locator(`endpoint-table tbody tr[data-method="${method}"][data-template="${template}"]`)
}

describe('hub on the real API: Differences', () => {
  test('the gate opens on Differences: endpoints, kinds of difference and fields, as the API counts them', async () => {
    await open(`/gates/${gateId}`)
    await page.locator('signature-table tbody tr').first().waitFor()
    expect(await page.locator('gate-page .tabs a[aria-current=page]').textContent()).toBe('Differences')
    expect(await page.locator('window-select input[value="24h"]').isChecked()).toBe(true)

    // The endpoints the API lists for 24 hours, in its order (by diff rate).
    const listed = await api<Listed<EndpointRow>>('GET', `/gates/${gateId}/endpoints`)
    const shown = await page.locator('endpoint-table tbody tr').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-method')} ${r.getAttribute('data-template')}`))
    expect(shown).toEqual(listed.body.data.map((e) => `${e.method} ${e.template}`))
    expect(new Set(shown)).toEqual(new Set(Object.keys(ENDPOINTS)))
    const products = endpointRow('GET /v2/products/{id}')
    expect(await products.locator('td.requests, td.diffs, td.errors').allTextContents()).toEqual(['10', '4', '0'])
    expect(await products.locator('diff-rate .value').textContent()).toBe('40.0%')
    expect(await endpointRow('GET /v2/search').locator('td.errors').textContent()).toBe('2')
    // Live and shadow latency side by side; the timed-out shadow is the slower one.
    expect(await endpointRow('GET /v2/search').locator('td.latency .slower').count()).toBe(1)

    // Each kind of difference in one line, counted as the API counts it.
    const signatures = await api<Listed<SignatureRow>>('GET', `/gates/${gateId}/signatures`)
    expect(signatures.body.pagination.total).toBe(3)
    for (const { summary, count } of Object.values(EXPECTED)) {
      const row = signatureRow(summary)
      expect(await row.locator('code.text').textContent()).toBe(summary)
      const id = await row.getAttribute('data-signature')
      const fromApi = signatures.body.data.find((s) => s.id === id)
      // The older tax difference is in the 24 h window too.
      expect(fromApi?.count).toBe(summary === EXPECTED.tax.summary ? count + 1 : count)
      expect(await row.locator('td.count').textContent()).toBe(String(fromApi?.count))
    }
    expect(await signatureRow(EXPECTED.timeout.summary).getAttribute('data-kind')).toBe('error')

    // The fields: the renamed one on both sides, the tax changed.
    const field = (op: string, path: string) => page.locator(`field-table tbody tr[data-op="${op}"][data-path="${path}"]`)
    expect(await field('remove', '/body/name').locator('td.count').textContent()).toBe('4')
    expect(await field('add', '/body/title').locator('td.change .badge').textContent()).toBe('only shadow')
    expect(await field('replace', '/body/tax').locator('td.count').textContent()).toBe('4')
  }, TIMEOUT)

  test('in a narrow window the endpoints scroll sideways by keyboard, and a wrapping summary leaves its kind whole', async () => {
    await open(`/gates/${gateId}`)
    await page.locator('endpoint-table tbody tr').first().waitFor()
    const size = page.viewportSize()!
    await page.setViewportSize({ width: 640, height: size.height })
    try {
      const wrap = page.locator('endpoint-table .table-wrap')
      await until(() => wrap.evaluate((el) => el.scrollWidth > el.clientWidth), (wide) => wide, 'a table wider than its box')
      await wrap.focus()
      for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight')
      await until(() => wrap.evaluate((el) => el.scrollLeft), (left) => left > 0, 'scrolled sideways')
      // Each kind's pill as wide as its word, however its row wraps.
      const pills = await page.locator('signature-table .line .badge').evaluateAll((els) => els.map((el) => el.scrollWidth <= el.clientWidth))
      expect(pills.length).toBeGreaterThan(0)
      expect(pills.every(Boolean)).toBe(true)
    } finally {
      await page.setViewportSize(size)
    }
  }, TIMEOUT)

  test('the window lives in the URL: the last hour leaves the older capture out', async () => {
    await open(`/gates/${gateId}`)
    const tax = () => signatureRow(EXPECTED.tax.summary).locator('td.count').textContent()
    await until(tax, (t) => t === String(EXPECTED.tax.count + 1), 'the 24 h count')
    await page.locator('window-select input[value="1h"]').check()
    await page.waitForURL(/\?window=1h$/)
    await until(tax, (t) => t === String(EXPECTED.tax.count), 'the last hour count')
    const since = await api<Listed<SignatureRow>>('GET', `/gates/${gateId}/signatures?from=${encodeURIComponent(hourAgo())}`)
    expect(since.body.data.find((s) => s.template === '/v2/products/{id}/price')?.count).toBe(EXPECTED.tax.count)

    // A link with the window opens on it; back returns to 24 hours.
    await page.reload()
    await until(tax, (t) => t === String(EXPECTED.tax.count), 'the last hour after a reload')
    expect(await page.locator('window-select input[value="1h"]').isChecked()).toBe(true)
    await page.goBack()
    await page.waitForURL(new RegExp(`/gates/${gateId}$`))
    await until(tax, (t) => t === String(EXPECTED.tax.count + 1), 'the 24 h count again')
  }, TIMEOUT)

  test('"Show requests" lists the captures of a kind of difference, "Example" opens one; the request page says how many share it', async () => {
    await open(`/gates/${gateId}?window=1h`)
    const row = signatureRow(EXPECTED.renamed.summary)
    await row.waitFor()
    const id = (await row.getAttribute('data-signature'))!
    await row.locator('a.requests').click()
    await page.waitForURL(new RegExp(`/gates/${gateId}/requests\\?from=[^&]+&to=[^&]+&signature=${id}$`))
    const links = page.locator('request-table tbody tr a.path')
    await until(() => links.count(), (n) => n === EXPECTED.renamed.count, `${EXPECTED.renamed.count} rows`)
    const listed = await api<Listed<{ id: string; signature_id: string; template: string }>>('GET', `/gates/${gateId}/requests?signature=${id}`)
    expect(listed.body.data.every((r) => r.signature_id === id && r.template === '/v2/products/{id}')).toBe(true)
    const hrefs = await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))
    expect(new Set(hrefs)).toEqual(new Set(listed.body.data.map((r) => `/gates/${gateId}/requests/${r.id}`)))
    expect(await page.locator('request-filters #signature').inputValue()).toBe(id)

    // The example is one of them; its page names the endpoint and the signature.
    await page.goBack()
    await row.locator('a.example').click()
    await page.waitForURL(/\/requests\/[0-9a-f-]{36}$/)
    const requestId = new URL(page.url()).pathname.split('/').at(-1)!
    expect(listed.body.data.map((r) => r.id)).toContain(requestId)
    const facts = page.locator('request-page request-signature')
    await facts.locator('.others a').waitFor()
    expect(await facts.locator('.endpoint').textContent()).toBe('GET/v2/products/{id}')
    expect(await facts.locator('code.summary').textContent()).toBe('only shadow /body/title, only live /body/name')
    expect(await facts.locator('code.id').textContent()).toBe(id)
    expect(await facts.locator('.others a').textContent()).toBe(`${EXPECTED.renamed.count - 1} other requests share this difference`)
    await facts.locator('.others a').click()
    await page.waitForURL(new RegExp(`/gates/${gateId}/requests\\?signature=${id}$`))
    await until(() => links.count(), (n) => n === EXPECTED.renamed.count, `${EXPECTED.renamed.count} rows`)

    // A capture without a difference has an endpoint and no signature.
    const identical = recent[0]!
    await page.goto(`${session.stack.hub.url}/gates/${gateId}/requests/${identical.id}`)
    await facts.locator('.endpoint').waitFor()
    expect(await facts.locator('dt').allTextContents()).toEqual(['Endpoint'])
  }, TIMEOUT)

  test('the request list filters by template as the API does; an endpoint links to its requests', async () => {
    await open(`/gates/${gateId}/requests`)
    const links = () => page.locator('request-table tbody tr a.path')
    await links().first().waitFor()
    await page.locator('request-filters #template').fill('/v2/products/{id}/price')
    await page.waitForURL(/\?template=%2Fv2%2Fproducts%2F%7Bid%7D%2Fprice$/)
    const byTemplate = await api<Listed<{ id: string }>>('GET', `/gates/${gateId}/requests?template=${encodeURIComponent('/v2/products/{id}/price')}`)
    expect(byTemplate.body.pagination.total).toBe(6)
    await until(() => links().count(), (n) => n === 6, '6 rows')
    const hrefs = await links().evaluateAll((as) => as.map((a) => a.getAttribute('href')))
    expect(new Set(hrefs)).toEqual(new Set(byTemplate.body.data.map((r) => `/gates/${gateId}/requests/${r.id}`)))

    // An endpoint's link carries its method, template and window.
    await open(`/gates/${gateId}`)
    await endpointRow('GET /v2/search').locator('a.endpoint').click()
    await page.waitForURL(/\/requests\?method=GET&from=[^&]+&to=[^&]+&template=%2Fv2%2Fsearch$/)
    await until(() => links().count(), (n) => n === ENDPOINTS['GET /v2/search'].requests, '3 rows')
    expect(await page.locator('request-filters #template').inputValue()).toBe('/v2/search')
    await page.locator('request-filters button', { hasText: 'Clear filters' }).click()
    await page.waitForURL(new RegExp(`/gates/${gateId}/requests$`))
  }, TIMEOUT)

  test('empty states: a gate without captures, and one without differences', async () => {
    const quiet = await createGate(session.stack.api, 'quiet-gate', 'http://quiet.prod.internal', 'http://quiet-v2.internal')
    await open(`/gates/${quiet.id}`)
    await page.locator('gate-differences empty-state h2').waitFor()
    expect(await page.locator('gate-differences empty-state h2').textContent()).toBe('No captures yet')

    const { recent: bodies } = differenceCaptures()
    await postCaptures(session.stack.api, quiet.id, bodies.slice(0, 3))
    await page.reload()
    await page.locator('endpoint-table tbody tr').first().waitFor()
    expect(await page.locator('gate-differences section', { hasText: 'Kinds of difference' }).locator('empty-state h2').textContent()).toBe('No differences in this window')
    expect(await page.locator('gate-differences section', { hasText: 'Fields that differ' }).locator('empty-state h2').textContent()).toBe('No field differs in this window')
  }, TIMEOUT)

  test('keyboard: the window by arrow keys, every control labelled, the links of a signature on the Tab path', async () => {
    await open(`/gates/${gateId}`)
    await page.locator('signature-table tbody tr').first().waitFor()
    expect(await unlabelledControls(page)).toEqual([])
    // The window is one radio group: arrow keys choose.
    await page.locator('window-select input[value="24h"]').focus()
    await page.keyboard.press('ArrowRight')
    await page.waitForURL(/\?window=7d$/)
    await page.locator('signature-table tbody tr').first().waitFor()

    // From the top signature's "Example", Tab reaches its "Show requests"; Enter follows it.
    const row = page.locator('signature-table tbody tr').first()
    await row.locator('a.example').focus()
    await page.keyboard.press('Tab')
    const stop = await focused(page)
    expect(stop).toMatchObject({ where: 'signature-table > a', name: 'Show requests', visible: true })
    await page.keyboard.press('Enter')
    await page.waitForURL(/\/requests\?from=[^&]+&to=[^&]+&signature=[0-9a-f]{16}$/)
    expect(await unlabelledControls(page)).toEqual([])
  }, TIMEOUT)
})
