import { describe, expect, test } from 'bun:test'
import { brotliCompressSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import { product, scenarios } from './support/catalog-data.ts'
import { focused, until, untilCount } from './support/page-probes.ts'
import { CATALOG, useRealApiSession } from './support/real-session.ts'
import { createGate, postCaptures } from './support/seed.ts'
import type { CreatedRequest } from './support/seed.ts'
import { captureBody } from '../support/captures.ts'

/**
 * The hub in a real headless Chromium against the real API on a fresh
 * PostgreSQL database, with captures posted through createRequest as a
 * proxy posts them (docs/hub.md "Tests"). The tests build on each other in
 * file order (the gate made through the form gets the captures, the
 * captures get opened, the settings change what the next captures show),
 * and each falls back to making what it needs when run alone (`-t`).
 * Keyboard, labels and keys: hub-real-api-access.test.ts.
 */

/** Per test: a browser on a loaded two-vCPU box, plus several page loads. */
const TIMEOUT = 90_000

const session = useRealApiSession()
const { api, catalogGate, catalogCaptures } = session
let page: Page

async function open(path: string, hubUrl?: string) {
  const response = await session.open(path, hubUrl)
  page = session.page
  return response
}

const rowLinks = () => page.locator('request-table tbody tr a.path')
const rowHrefs = () => rowLinks().evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''))
const stat = (label: string) => page.locator('stats-cards .card', { hasText: label }).locator('dd').first()

describe('hub on the real API (Chromium, PostgreSQL)', () => {
  test('create a gate through the form: the API 409 lands on the name, success opens the empty gate', async () => {
    const taken = await createGate(session.stack.api, 'checkout-api', 'http://checkout.prod.internal', 'http://checkout-v2.internal')
    const response = await open('/')
    // The CSP names the real API as the only other origin the page may call.
    const csp = response?.headers()['content-security-policy'] ?? ''
    expect(csp).toContain(`connect-src 'self' ${session.stack.api.url}`)
    await page.locator(`gate-table tbody tr[data-gate-id="${taken.id}"]`).waitFor()

    await page.locator('overview-page button[aria-controls=new-gate]').click()
    const form = page.locator('gate-form')
    await form.locator('#name').fill('checkout-api')
    await form.locator('#live_url').fill(CATALOG.live)
    await form.locator('#shadow_url').fill(CATALOG.shadow)
    await form.locator('button[type=submit]').click()
    const conflict = await api<{ detail: string }>('POST', '/gates', { name: 'checkout-api', live_url: CATALOG.live, shadow_url: CATALOG.shadow })
    expect(conflict.status).toBe(409)
    const shown = await until(() => form.locator('#name-error').textContent(), (t) => !!t, 'the name error')
    expect(shown).toBe(conflict.body.detail)
    expect(await form.locator('#name').getAttribute('aria-invalid')).toBe('true')

    await form.locator('#name').fill(CATALOG.name)
    await form.locator('button[type=submit]').click()
    await page.waitForURL(/\/gates\/[0-9a-f-]{36}$/)
    const catalogId = new URL(page.url()).pathname.split('/')[2]!
    session.adoptCatalogGate(catalogId)
    expect(await page.locator('gate-page h1').textContent()).toBe(CATALOG.name)
    await page.locator('gate-page empty-state h2').waitFor()
    expect(await page.locator('gate-page empty-state h2').textContent()).toBe('No captures yet')

    const stored = await api<{ data: { name: string; live_url: string; diff_config: unknown } }>('GET', `/gates/${catalogId}`)
    expect(stored.body.data).toMatchObject({ name: CATALOG.name, live_url: CATALOG.live })
    expect(stored.body.data.diff_config).toEqual({ ignored_fields: [], included_fields: [], float_tolerance: 0, sort_arrays: false })
  }, TIMEOUT)

  test('captures posted through the API show up; the filters narrow them as the API does', async () => {
    const gateId = await catalogGate()
    await open(`/gates/${gateId}/requests`)
    await page.locator('gate-page h1').waitFor()
    const created = await catalogCaptures()
    const all = Object.values(created)
    await page.locator('gate-page button', { hasText: 'Refresh' }).click()
    await untilCount(rowLinks(), all.length, `${all.length} rows`)
    expect(new Set(await rowHrefs())).toEqual(new Set(all.map((c) => `/gates/${gateId}/requests/${c.id}`)))
    expect((await page.locator('page-nav .range').textContent())?.trim()).toBe(`1–${all.length} of ${all.length} requests`)

    // A shadow 500 and a shadow that did not answer, side by side with live.
    const row = (c: CreatedRequest) => page.locator('request-table tbody tr', { has: page.locator(`a.path[href$="${c.id}"]`) })
    expect(await row(created.shadow500).locator('td.side .badge').allTextContents()).toEqual(['200', '500'])
    expect(await row(created.shadowError).locator('td.side .badge').allTextContents()).toEqual(['200', 'ERR'])
    expect(await row(created.shadowError).locator('td:last-child .badge').textContent()).toBe('error')
    expect(await row(created.identical).locator('td:last-child .badge').textContent()).toBe('same')
    // "slower" by the verdict's latency rule: the 5 s shadow against live's 38 ms, not 44 against 38 ms.
    expect(await row(created.shadow500).locator('td.side .latency.slower').count()).toBe(1)
    expect(await row(created.identical).locator('td.side .latency.slower').count()).toBe(0)

    // A page size set by a link is the one the selector shows; choosing 25 then works.
    await open(`/gates/${gateId}/requests?limit=2`)
    await untilCount(rowLinks(), 2, '2 rows')
    expect(await page.locator('page-nav select#size').inputValue()).toBe('2')
    await page.locator('page-nav select#size').selectOption('25')
    await untilCount(rowLinks(), all.length, `${all.length} rows`)
    await open(`/gates/${gateId}/requests`)

    // The gate's stats come from the API's rollups.
    await page.reload()
    const diffs = all.filter((c) => c.has_diff)
    expect(await stat('Requests, last 24 h').textContent()).toBe(String(all.length))
    expect(await stat('With a diff').textContent()).toBe(String(diffs.length))

    // has_diff=true: the same rows the API lists.
    await page.locator('request-filters .chip:has(input[name=has_diff][value=true])').click()
    await page.waitForURL(/\?has_diff=true$/)
    await until(rowHrefs, (h) => h.length === diffs.length, `${diffs.length} rows with a diff`)
    const listed = await api<{ data: { id: string }[]; pagination: { total: number } }>('GET', `/gates/${gateId}/requests?has_diff=true`)
    expect(listed.body.pagination.total).toBe(diffs.length)
    expect(new Set(await rowHrefs())).toEqual(new Set(listed.body.data.map((r) => `/gates/${gateId}/requests/${r.id}`)))
    expect(new Set(await page.locator('request-table tbody tr td:last-child .badge').allTextContents())).toEqual(new Set(['diff', 'error']))

    // Methods and a path pattern with `*`, combined with has_diff: nothing, then the cart calls.
    await page.locator('request-filters .chip:has(input[value=POST])').click()
    await page.waitForURL(/method=POST&has_diff=true/)
    await page.locator('gate-page empty-state h2', { hasText: 'No request matches these filters' }).waitFor()
    await page.locator('request-filters .chip:has(input[name=has_diff][value=any])').click()
    await page.waitForURL(/\?method=POST$/)
    await until(rowHrefs, (h) => h.length === 1 && h[0]!.endsWith(created.addToCart.id), 'the POST row')
    await page.locator('request-filters .chip:has(input[value=POST])').click()
    await page.locator('request-filters #path').fill('/v2/cart/*')
    await page.waitForURL(/\?path=%2Fv2%2Fcart%2F\*$|\?path=\/v2\/cart\/\*$/)
    await until(rowHrefs, (h) => h.length === 2, 'the two cart rows')
    expect(new Set(await rowHrefs())).toEqual(new Set([created.addToCart.id, created.removeFromCart.id].map((id) => `/gates/${gateId}/requests/${id}`)))

    // The back button walks back through the filters.
    await page.goBack()
    await page.waitForURL(/\?method=POST$/)

    // A time range (minute precision): from the minute of the shadow 500 on.
    await page.locator('request-filters button', { hasText: 'Clear filters' }).click()
    await page.waitForURL(new RegExp(`/gates/${gateId}/requests$`))
    const from = new Date(Math.floor(Date.parse(created.shadow500.created_at) / 60_000) * 60_000)
    await page.locator('request-filters #from').fill(from.toISOString().slice(0, 16))
    await page.waitForURL(/\?from=/)
    expect(new URL(page.url()).searchParams.get('from')).toBe(from.toISOString())
    const since = await api<{ data: { id: string }[] }>('GET', `/gates/${gateId}/requests?from=${from.toISOString()}`)
    const expected = all.filter((c) => Date.parse(c.created_at) >= from.getTime())
    expect(new Set(since.body.data.map((r) => r.id))).toEqual(new Set(expected.map((c) => c.id)))
    await until(rowHrefs, (h) => h.length === expected.length, `${expected.length} rows since ${from.toISOString()}`)
    expect(new Set(await rowHrefs())).toEqual(new Set(expected.map((c) => `/gates/${gateId}/requests/${c.id}`)))

    // "Captured to" that same minute: through its last millisecond, not its first.
    await page.locator('request-filters #to').fill(from.toISOString().slice(0, 16))
    await page.waitForURL(/&to=/)
    const to = new Date(from.getTime() + 59_999)
    expect(new URL(page.url()).searchParams.get('to')).toBe(to.toISOString())
    const within = all.filter((c) => Date.parse(c.created_at) >= from.getTime() && Date.parse(c.created_at) <= to.getTime())
    expect(within.length).toBeGreaterThan(0)
    await until(rowHrefs, (h) => h.length === within.length, `${within.length} rows within the minute of ${from.toISOString()}`)
    expect(new Set(await rowHrefs())).toEqual(new Set(within.map((c) => `/gates/${gateId}/requests/${c.id}`)))
  }, TIMEOUT)

  test('a renamed field: the operations, the highlights in both bodies, and "Show"', async () => {
    const gateId = await catalogGate()
    const { renamed } = await catalogCaptures()
    await open(`/gates/${gateId}/requests?has_diff=true`)
    await page.locator(`request-table a.path[href$="${renamed.id}"]`).click()
    await page.waitForURL(new RegExp(`/requests/${renamed.id}$`))
    await page.locator('diff-list tbody tr').first().waitFor()

    const detail = await api<{ data: { diff: { content: { op: string; path: string }[] } } }>('GET', `/gates/${gateId}/requests/${renamed.id}`)
    const ops = detail.body.data.diff.content
    expect(ops).toEqual([{ op: 'remove', path: '/body/name' }, expect.objectContaining({ op: 'add', path: '/body/title' })])
    expect(await page.locator('diff-list tbody tr code.path').allTextContents()).toEqual(ops.map((o) => o.path))
    expect(await page.locator('diff-list tbody tr td:first-child .badge').allTextContents()).toEqual(['only live', 'only shadow'])
    expect(await page.locator('request-page dd .badge').first().textContent()).toBe('2 operations')

    const live = page.locator('response-panel[side=live]')
    const shadow = page.locator('response-panel[side=shadow]')
    const name = product(2).name
    expect(await live.locator('json-view li.m-removed > .row[data-pointer="/name"]').textContent()).toContain(name)
    expect(await shadow.locator('json-view li.m-added > .row[data-pointer="/title"]').textContent()).toContain(name)
    // Marks carry a word, not colour alone.
    expect(await live.locator('json-view li.m-removed > .row[data-pointer="/name"] .tag').textContent()).toBe('removed')
    // Nothing else is marked.
    expect(await page.locator('json-view li[class^="m-"]').count()).toBe(2)

    await page.locator('diff-list tbody tr', { hasText: '/body/title' }).locator('button').click()
    await until(() => focused(page), (f) => f?.where === 'json-view > div' && f.name.includes('"title"'), 'focus on the shadow /title row')
  }, TIMEOUT)

  test('a gate whose only captures came this minute says it counts them once the minute ends', async () => {
    // The minute must not end between the capture and the page's read: started early in one.
    const second = new Date().getUTCSeconds()
    if (second > 40) await Bun.sleep((61 - second) * 1000)
    const gate = await createGate(session.stack.api, 'just now', 'http://live.now', 'http://shadow.now')
    await postCaptures(session.stack.api, gate.id, [captureBody({ path: '/now', created_at: new Date().toISOString() }) as never])
    await open(`/gates/${gate.id}`)
    const heading = page.locator('gate-differences empty-state h2')
    await heading.waitFor()
    expect(await heading.textContent()).toBe('Counting this minute')
  }, TIMEOUT)

  test('ids past 2^53 that differ in their last digit: marked, each side shown with the digits it sent', async () => {
    const gate = await createGate(session.stack.api, 'snowflake ids', 'http://live.ids', 'http://shadow.ids')
    const body = captureBody({ path: '/v1/orders/1' }) as Record<string, { body: string }>
    body.live_response!.body = Buffer.from('{"id":9007199254740993,"total":12}').toString('base64')
    body.shadow_response!.body = Buffer.from('{"id":9007199254740995,"total":12}').toString('base64')
    const [created] = await postCaptures(session.stack.api, gate.id, [body as never])
    await open(`/gates/${gate.id}/requests/${created!.id}`)
    await page.locator('diff-list tbody tr').first().waitFor()
    expect(await page.locator('diff-list tbody tr code.path').allTextContents()).toEqual(['/body/id'])
    const row = (side: string) => page.locator(`response-panel[side=${side}] json-view li.m-changed > .row[data-pointer="/id"]`)
    expect(await row('live').textContent()).toContain('9007199254740993')
    expect(await row('shadow').textContent()).toContain('9007199254740995')
  }, TIMEOUT)

  test('a float change, a reordered array, a shadow 500 and a shadow that never answered', async () => {
    const gateId = await catalogGate()
    const c = await catalogCaptures()
    const request = async (which: CreatedRequest) => {
      await page.goto(`${session.stack.hub.url}/gates/${gateId}/requests/${which.id}`)
      await page.locator('response-panel[side=shadow] .card-header').waitFor()
    }
    await open('/')
    const live = page.locator('response-panel[side=live]')
    const shadow = page.locator('response-panel[side=shadow]')

    await request(c.float)
    expect(await live.locator('json-view li.m-changed > .row[data-pointer="/tax"]').textContent()).toContain(String(product(4).price.tax))
    expect(await shadow.locator('json-view li.m-changed > .row[data-pointer="/tax"]').textContent()).toContain(String((product(4).price.amount * 0.21) / 1.21))

    await request(c.reordered)
    const [first, second] = product(3).tags
    expect(await live.locator('json-view li.m-removed > .row[data-pointer="/tags/0"]').textContent()).toContain(first!)
    expect(await shadow.locator('json-view li.m-added > .row[data-pointer="/tags/1"]').textContent()).toContain(first!)
    expect(await shadow.locator('json-view .row[data-pointer="/tags/0"]').textContent()).toContain(second!)

    await request(c.shadow500)
    expect(await live.locator('.status.m-changed').textContent()).toContain('200')
    expect(await shadow.locator('.status.m-changed').textContent()).toContain('500')
    expect(await shadow.locator('headers-table tr.m-changed[data-name="X-Catalog-Version"]').count()).toBe(1)
    expect(await live.locator('json-view li.m-removed > .row[data-pointer="/items"]').count()).toBe(1)
    expect(await shadow.locator('json-view li.m-added > .row[data-pointer="/detail"]').textContent()).toContain('inventory lookup timed out')

    // The API stores a failed shadow with status 0, its error as the body, has_diff and an empty patch.
    await request(c.shadowError)
    expect(await page.locator('request-page dd .badge').first().textContent()).toBe('not compared')
    expect(await page.locator('request-page .failed h3').textContent()).toBe('The shadow service did not answer')
    expect(await page.locator('request-page .failed code').textContent()).toContain('context deadline exceeded')
    expect((await shadow.locator('.status').textContent())?.trim()).toBe('ERROR')
    expect(await page.locator('diff-list').count()).toBe(0)

    await request(c.identical)
    expect(await page.locator('request-page empty-state h2').textContent()).toBe('No difference')
    expect(await page.locator('request-page dd .badge').first().textContent()).toBe('identical')

    // Brotli bodies: the API diffs them decoded; Chromium cannot decode them, and the page says so.
    const brotli = (value: unknown) => brotliCompressSync(JSON.stringify(value)).toString('base64')
    const compressed = captureBody({}) as { live_response: Record<string, unknown>; shadow_response: Record<string, unknown> }
    for (const [side, value] of [[compressed.live_response, { a: 1 }], [compressed.shadow_response, { a: 2 }]] as const) {
      side.headers = { 'Content-Type': ['application/json'], 'Content-Encoding': ['br'] }
      side.body = brotli(value)
    }
    const posted = (await (await session.stack.api.call('POST', `/gates/${gateId}/requests`, compressed)).json()) as { data: CreatedRequest }
    await request(posted.data)
    expect(await live.locator('body-view .bar .muted').textContent()).toStartWith('br-compressed, which this browser cannot decode')
    expect(await page.locator('diff-list .warn').first().textContent()).toBe('not shown: the live body is br-compressed, which this browser cannot decode')
  }, TIMEOUT)

  test('diff settings: saved through the API, shown after a reload, applied to the next captures', async () => {
    const gateId = await catalogGate()
    await catalogCaptures()
    await open(`/gates/${gateId}/settings`)
    const form = page.locator('diff-config-form')
    await form.locator('#retention').waitFor()

    // The floor comes from the API's GET /config (720h by default).
    await form.locator('#retention').fill('24h')
    await form.locator('button[type=submit]').click()
    expect(await form.locator('#retention-error').textContent()).toContain('at least the global floor of 720h')

    // A tolerance the number field cannot read is refused, not saved as 0.
    await form.locator('#retention').fill('1440h')
    await form.locator('#float_tolerance').fill('')
    await form.locator('#float_tolerance').pressSequentially('1e')
    await form.locator('button[type=submit]').click()
    expect(await form.locator('#float_tolerance-error').textContent()).toContain('Enter a number of 0 or more.')

    await form.locator('#ignored_fields').fill('body.name\nbody.title')
    await form.locator('#float_tolerance').fill('0.01')
    await form.locator('#sort_arrays').check()
    await form.locator('#redacted_fields').fill('body.stock.warehouse')
    // Endpoint templates: one the hub refuses itself, then one the API refuses, named by its field.
    await form.locator('#endpoints').fill('/products/{id}\nproducts/{id}')
    await form.locator('button[type=submit]').click()
    expect(await form.locator('#endpoints-error').textContent()).toBe('"products/{id}" must start with /.')
    await form.locator('#endpoints').fill('/products/{id')
    await form.locator('button[type=submit]').click()
    await form.locator('#endpoints-error', { hasText: /\S/ }).waitFor()
    expect(await form.locator('#endpoints-error').textContent()).toContain('endpoints')
    await form.locator('#endpoints').fill('/products/{id}\n/static/*')
    await form.locator('button[type=submit]').click()
    await form.locator('.saved', { hasText: 'Settings saved.' }).waitFor()

    const expected = { ignored_fields: ['body.name', 'body.title'], included_fields: [], float_tolerance: 0.01, sort_arrays: true }
    const stored = await api<{ data: { diff_config: unknown; redacted_fields: string[]; retention: string; endpoints: string[] } }>('GET', `/gates/${gateId}`)
    expect(stored.body.data).toMatchObject({
      diff_config: expected,
      redacted_fields: ['body.stock.warehouse'],
      retention: '1440h',
      endpoints: ['/products/{id}', '/static/*'],
    })

    await page.reload()
    await form.locator('#retention').waitFor()
    expect(await form.locator('#ignored_fields').inputValue()).toBe('body.name\nbody.title')
    expect(await form.locator('#float_tolerance').inputValue()).toBe('0.01')
    expect(await form.locator('#sort_arrays').isChecked()).toBe(true)
    expect(await form.locator('#redacted_fields').inputValue()).toBe('body.stock.warehouse')
    expect(await form.locator('#retention').inputValue()).toBe('1440h')
    expect(await form.locator('#endpoints').inputValue()).toBe('/products/{id}\n/static/*')

    // The API compares the next captures with these settings: the same three differences are gone.
    const s = scenarios()
    const again = await postCaptures(session.stack.api, gateId, [s.renamed, s.float, s.reordered])
    expect(again.map((r) => r.has_diff)).toEqual([false, false, false])
    await page.locator('gate-page .tabs a', { hasText: 'Requests' }).click()
    const newest = page.locator('request-table tbody tr', { has: page.locator(`a.path[href$="${again[2]!.id}"]`) })
    expect(await newest.locator('td:last-child .badge').textContent()).toBe('same')
    // …and redacts the new field before storing it.
    await page.goto(`${session.stack.hub.url}/gates/${gateId}/requests/${again[0]!.id}`)
    await page.locator('request-page empty-state h2', { hasText: 'No difference' }).waitFor()
    expect(await page.locator('response-panel[side=live] json-view .row[data-pointer="/stock/warehouse"]').textContent()).toContain('[REDACTED]')
  }, TIMEOUT)

  test("the API's 404 and 400 become a not-found state with a way back", async () => {
    const gateId = await catalogGate()
    await open('/gates/00000000-0000-4000-8000-000000000000')
    await page.locator('error-state h2').waitFor()
    expect(await page.locator('error-state h2').textContent()).toBe('Gate not found')
    expect(await page.locator('error-state p').first().textContent()).toBe('no gate with id 00000000-0000-4000-8000-000000000000')
    // A malformed id: the API's 400 names the parameter.
    await page.goto(`${session.stack.hub.url}/gates/not-a-uuid`)
    await page.locator('error-state p', { hasText: 'gate_id must be a UUID' }).waitFor()
    expect(await page.locator('error-state h2').textContent()).toBe('Gate not found')
    // A 400 about a filter is the request's, not a missing gate.
    await page.goto(`${session.stack.hub.url}/gates/${gateId}/requests?from=2026-11-27T10:00:00.000Z&to=2026-11-27T09:00:00.000Z`)
    await page.locator('error-state p', { hasText: 'from must not be after to' }).waitFor()
    expect(await page.locator('error-state h2').textContent()).toBe('Invalid parameter')
    expect(await page.locator('error-state a[href="/"]').count()).toBe(0)
    // A request id the API does not know, under a real gate.
    await page.goto(`${session.stack.hub.url}/gates/${gateId}/requests/00000000-0000-4000-8000-000000000000`)
    await page.locator('error-state h2', { hasText: 'Request not found' }).waitFor()
    await page.locator('error-state a[href="/"]').click()
    await page.locator('gate-table tbody tr').first().waitFor()
  }, TIMEOUT)

  test('delete a gate: the dialog asks first; Escape keeps it, confirming deletes it and its captures', async () => {
    const doomed = await createGate(session.stack.api, 'legacy-search', 'http://svc:search-secret@search.prod.internal', 'http://search-v1.internal')
    const [kept] = await postCaptures(session.stack.api, doomed.id, [scenarios().identical])
    await open('/')
    const row = page.locator(`gate-table tbody tr[data-gate-id="${doomed.id}"]`)
    // Credentials in an upstream URL: the address is shown, the password is not.
    expect(await row.locator('.url').first().textContent()).toBe('http://svc:***@search.prod.internal')
    expect(await row.innerHTML()).not.toContain('search-secret')
    const gates = Number(await until(() => stat('Gates').textContent(), (t) => /^\d+$/.test(t ?? ''), 'the gate count'))

    await row.locator('button', { hasText: 'Delete' }).click()
    const dialog = page.locator('confirm-dialog dialog[open]')
    await dialog.waitFor()
    expect(await dialog.locator('h2').textContent()).toBe('Delete gate "legacy-search"?')
    // A destructive question starts on Cancel; Escape cancels.
    expect(await focused(page)).toMatchObject({ where: 'confirm-dialog > button', name: 'Cancel' })
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    expect(await row.count()).toBe(1)
    expect((await api('GET', `/gates/${doomed.id}`)).status).toBe(200)

    await row.locator('button', { hasText: 'Delete' }).click()
    await dialog.locator('button[value=confirm]').click()
    await row.waitFor({ state: 'detached' })
    expect(await page.locator('overview-page .notice').textContent()).toBe('Gate "legacy-search" deleted.')
    await until(() => stat('Gates').textContent(), (t) => t === String(gates - 1), 'the gate count to drop')
    expect((await api('GET', `/gates/${doomed.id}`)).status).toBe(404)
    expect((await api('GET', `/gates/${doomed.id}/requests/${kept!.id}`)).status).toBe(404)

    // Deleted meanwhile in another tab: done all the same, and the list follows.
    const gone = await createGate(session.stack.api, 'already-gone', 'http://gone.prod.internal', 'http://gone-v2.internal')
    await open('/')
    const goneRow = page.locator(`gate-table tbody tr[data-gate-id="${gone.id}"]`)
    await goneRow.waitFor()
    expect((await api('DELETE', `/gates/${gone.id}`)).status).toBe(204)
    await goneRow.locator('button', { hasText: 'Delete' }).click()
    await page.locator('confirm-dialog dialog[open] button[value=confirm]').click()
    await goneRow.waitFor({ state: 'detached' })
    expect(await page.locator('overview-page .notice').textContent()).toBe('Gate "already-gone" was already deleted.')
    expect(await page.locator('overview-page error-state').count()).toBe(0)
  }, TIMEOUT)
})
