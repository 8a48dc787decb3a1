/**
 * Screenshots of the hub's pages at 1280 px, for the README and docs/hub.md:
 * docs/screenshots/{overview,differences,gate,request}.png, or with --demo
 * the README's walk through the demo: demo-gate.png (Differences, the
 * suggestions on top), demo-preview.png (Ignore all: the settings with the
 * preview), demo-rediff.png (saved and re-diffed) and demo-quiet.png
 * (Differences afterwards). --demo SAVES the suggested rules on the demo
 * gate, as the README's second click does.
 *
 *   bun test/e2e/take-screenshots.ts          # the real API on a fresh PostgreSQL database (SVC_TEST_PG_URL)
 *   bun test/e2e/take-screenshots.ts --fake   # the fake API of the smoke test
 *   HUB_URL=http://127.0.0.1:8070 GATE_ID=<uuid> REQUEST_ID=<uuid> \
 *     bun test/e2e/take-screenshots.ts        # a running hub
 *   HUB_URL=http://127.0.0.1:8070 GATE_ID=<the demo gate> \
 *     bun test/e2e/take-screenshots.ts --demo # the walk through a fresh `bun run demo` (a minute old)
 *
 * The real-API data (test/e2e/support/showcase-seed.ts): a "catalog-v2
 * canary" gate with an hour of storefront traffic posted through
 * createRequest and a day of older traffic loaded with SQL, and a few
 * other gates. With HUB_URL, the hub must have a key configured (or the
 * screenshots show the key prompt); REQUEST_ID should be a capture with
 * a diff.
 */
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { launchChromium, watchProblems } from './support/browser.ts'
import { startRealHubStack } from './support/real-stack.ts'
import { seedShowcase } from './support/showcase-seed.ts'
import { startHubStack } from './support/stack.ts'

const OUT = resolve(import.meta.dir, '../../docs/screenshots')
const DEMO = process.argv.includes('--demo')
const WIDTH = 1280

interface Target {
  readonly hubUrl: string
  readonly gateId: string
  readonly requestId: string
  stop(): Promise<void>
}

async function target(): Promise<Target> {
  const env = process.env
  if (env.HUB_URL && DEMO) {
    if (!env.GATE_ID) throw new Error('--demo needs GATE_ID')
    return { hubUrl: env.HUB_URL, gateId: env.GATE_ID, requestId: '', stop: async () => {} }
  }
  if (DEMO) throw new Error('--demo needs HUB_URL and GATE_ID of a running demo')
  if (env.HUB_URL) {
    if (!env.GATE_ID || !env.REQUEST_ID) throw new Error('HUB_URL needs GATE_ID and REQUEST_ID')
    return { hubUrl: env.HUB_URL, gateId: env.GATE_ID, requestId: env.REQUEST_ID, stop: async () => {} }
  }
  if (process.argv.includes('--fake')) {
    const stack = await startHubStack()
    const gateId = stack.api.data.gates.find((g) => g.name === 'checkout-api')!.id
    const requestId = stack.api.data.requests.get(gateId)!.find((r) => r.diff.content.length === 7)!.id
    return { hubUrl: stack.hub.url, gateId, requestId, stop: () => stack.stop() }
  }
  const stack = await startRealHubStack({ hubs: 1 })
  try {
    return { hubUrl: stack.hub.url, ...(await seedShowcase(stack)), stop: () => stack.stop() }
  } catch (error) {
    await stack.stop()
    throw error
  }
}

/** The README's steps on the running demo: suggestions, Ignore all, the preview, Save, re-diff, the quiet view. */
async function demoWalkthrough(browser: Awaited<ReturnType<typeof launchChromium>>, t: Target): Promise<void> {
  const context = await browser.newContext({ viewport: { width: WIDTH, height: 1100 }, deviceScaleFactor: 1 })
  const page = await context.newPage()
  const problems = await watchProblems(page)
  const shot = async (file: string, fullPage = false) => {
    await page.waitForTimeout(400)
    await page.screenshot({ path: join(OUT, file), fullPage })
    console.log(`wrote ${join(OUT, file)}`)
  }
  await page.goto(`${t.hubUrl}/gates/${t.gateId}`)
  for (const ready of ['suggestion-list li', 'endpoint-table tbody tr', 'signature-table tbody tr']) await page.locator(ready).first().waitFor({ timeout: 15_000 })
  await shot('demo-gate.png')
  await page.locator('gate-differences button.ignore-all').click()
  await page.locator('diff-preview .headline').waitFor({ timeout: 15_000 })
  await shot('demo-preview.png', true)
  await page.locator('diff-config-form button[type=submit]').click()
  await page.locator('rediff-panel button.start').click()
  await page.locator('rediff-panel .done').waitFor({ timeout: 60_000 })
  await page.locator('rediff-panel .done').scrollIntoViewIfNeeded()
  await shot('demo-rediff.png')
  await page.locator('rediff-panel a', { hasText: 'See the differences' }).click()
  await page.locator('signature-table tbody tr').first().waitFor({ timeout: 15_000 })
  await page.locator('gate-differences section.suggestions p.empty').waitFor({ timeout: 15_000 })
  await shot('demo-quiet.png')
  if (problems.csp.length || problems.errors.length) throw new Error(`demo walk-through: ${JSON.stringify(problems)}`)
  await context.close()
}

const t = await target()
await mkdir(OUT, { recursive: true })
const browser = await launchChromium()
try {
  const shots: { file: string; path: string; ready: string | string[]; height: number; fullPage: boolean }[] = [
    { file: 'overview.png', path: '/', ready: 'gate-table tbody tr', height: 800, fullPage: true },
    { file: 'differences.png', path: `/gates/${t.gateId}`, ready: ['endpoint-table tbody tr', 'signature-table tbody tr', 'field-table tbody tr'], height: 1500, fullPage: false },
    { file: 'gate.png', path: `/gates/${t.gateId}/requests`, ready: 'request-table tbody tr', height: 1150, fullPage: false },
    { file: 'request.png', path: `/gates/${t.gateId}/requests/${t.requestId}`, ready: 'diff-list tbody tr', height: 1400, fullPage: false },
  ]
  if (DEMO) await demoWalkthrough(browser, t)
  for (const s of DEMO ? [] : shots) {
    const context = await browser.newContext({ viewport: { width: WIDTH, height: s.height }, deviceScaleFactor: 1 })
    const page = await context.newPage()
    const problems = await watchProblems(page)
    await page.goto(`${t.hubUrl}${s.path}`)
    for (const ready of [s.ready].flat()) await page.locator(ready).first().waitFor({ timeout: 15_000 })
    // Let fonts settle and animations finish.
    await page.waitForTimeout(400)
    await page.screenshot({ path: join(OUT, s.file), fullPage: s.fullPage })
    if (problems.csp.length || problems.errors.length) throw new Error(`${s.path}: ${JSON.stringify(problems)}`)
    console.log(`wrote ${join(OUT, s.file)}`)
    await context.close()
  }
} finally {
  await browser.close()
  await t.stop()
}
