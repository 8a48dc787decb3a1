/**
 * Screenshots of the hub's three pages at 1280 px, for the README:
 * docs/screenshots/{overview,gate,request}.png.
 *
 *   bun test/e2e/take-screenshots.ts                 # against the fake API
 *   HUB_URL=http://127.0.0.1:8070 GATE_ID=<uuid> REQUEST_ID=<uuid> \
 *     bun test/e2e/take-screenshots.ts               # against a running hub
 *
 * With HUB_URL, the hub must have a key configured (or the screenshots
 * show the key prompt). REQUEST_ID should be a capture with a diff.
 */
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { launchChromium, watchProblems } from './support/browser.ts'
import { startHubStack } from './support/stack.ts'

const OUT = resolve(import.meta.dir, '../../docs/screenshots')
const WIDTH = 1280

const env = process.env
const stack = env.HUB_URL ? undefined : await startHubStack()
const hubUrl = env.HUB_URL ?? stack!.hub.url
const gateId = env.GATE_ID ?? stack!.api.data.gates.find((g) => g.name === 'checkout-api')!.id
const requestId =
  env.REQUEST_ID ?? stack!.api.data.requests.get(gateId)!.find((r) => r.diff.content.length === 7)!.id

await mkdir(OUT, { recursive: true })
const browser = await launchChromium()
try {
  const shots: { file: string; path: string; ready: string; height: number; fullPage: boolean }[] = [
    { file: 'overview.png', path: '/', ready: 'gate-table tbody tr', height: 800, fullPage: true },
    { file: 'gate.png', path: `/gates/${gateId}`, ready: 'request-table tbody tr', height: 1150, fullPage: false },
    { file: 'request.png', path: `/gates/${gateId}/requests/${requestId}`, ready: 'diff-list tbody tr', height: 1400, fullPage: false },
  ]
  for (const s of shots) {
    const context = await browser.newContext({ viewport: { width: WIDTH, height: s.height }, deviceScaleFactor: 1 })
    const page = await context.newPage()
    const problems = await watchProblems(page)
    await page.goto(`${hubUrl}${s.path}`)
    await page.locator(s.ready).first().waitFor({ timeout: 15_000 })
    // Let fonts settle and animations finish.
    await page.waitForTimeout(400)
    await page.screenshot({ path: join(OUT, s.file), fullPage: s.fullPage })
    if (problems.csp.length || problems.errors.length) throw new Error(`${s.path}: ${JSON.stringify(problems)}`)
    console.log(`wrote ${join(OUT, s.file)}`)
    await context.close()
  }
} finally {
  await browser.close()
  await stack?.stop()
}
