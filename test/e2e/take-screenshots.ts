/**
 * Screenshots of the hub's pages at 1280 px, for the README and docs/hub.md:
 * docs/screenshots/{overview,differences,gate,request}.png, or
 * demo-gate.png with --demo.
 *
 *   bun test/e2e/take-screenshots.ts          # the real API on a fresh PostgreSQL database (SVC_TEST_PG_URL)
 *   bun test/e2e/take-screenshots.ts --fake   # the fake API of the smoke test
 *   HUB_URL=http://127.0.0.1:8070 GATE_ID=<uuid> REQUEST_ID=<uuid> \
 *     bun test/e2e/take-screenshots.ts        # a running hub
 *   HUB_URL=http://127.0.0.1:8070 GATE_ID=<the demo gate> \
 *     bun test/e2e/take-screenshots.ts --demo # demo-gate.png: the Differences view of `bun run demo`
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

const t = await target()
await mkdir(OUT, { recursive: true })
const browser = await launchChromium()
try {
  const differences = (file: string) => ({ file, path: `/gates/${t.gateId}`, ready: ['endpoint-table tbody tr', 'signature-table tbody tr', 'field-table tbody tr'], height: 1500, fullPage: false })
  const shots: { file: string; path: string; ready: string | string[]; height: number; fullPage: boolean }[] = DEMO
    ? [differences('demo-gate.png')]
    : [
        { file: 'overview.png', path: '/', ready: 'gate-table tbody tr', height: 800, fullPage: true },
        differences('differences.png'),
        { file: 'gate.png', path: `/gates/${t.gateId}/requests`, ready: 'request-table tbody tr', height: 1150, fullPage: false },
        { file: 'request.png', path: `/gates/${t.gateId}/requests/${t.requestId}`, ready: 'diff-list tbody tr', height: 1400, fullPage: false },
      ]
  for (const s of shots) {
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
