import { backfillInsights } from '../../../src/store/insight-backfill.ts'
import { showcase } from './catalog-data.ts'
import { catalogTraffic } from './catalog-traffic.ts'
import type { RealHubStack } from './real-stack.ts'
import { createGate, postCaptures, seedBulkCaptures } from './seed.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** Gates of a small shop, with a day of traffic each (SQL) and their age. */
const GATES = [
  { name: 'checkout-api', live: 'http://checkout.prod.internal:8080', shadow: 'http://checkout-v2.canary.internal:8080', count: 18_452, diffEvery: 9, ageDays: 21 },
  { name: 'pricing-service', live: 'https://pricing.prod.internal', shadow: 'https://pricing-rust.shadow.internal', count: 7_905, diffEvery: 480, ageDays: 9 },
  { name: 'search-next', live: 'http://search.prod.internal', shadow: 'http://search-next.staging.internal', count: 24_310, diffEvery: 160, ageDays: 48 },
  { name: 'accounts-legacy', live: 'http://accounts.prod.internal', shadow: 'http://accounts-go.shadow.internal', count: 2_118, diffEvery: 0, ageDays: 90 },
  { name: 'inventory-sync', live: 'http://inventory.prod.internal', shadow: 'http://inventory.next.internal', count: 0, diffEvery: 0, ageDays: 2 },
] as const

/**
 * Realistic data for the screenshots on the real API: the catalog canary
 * with its last hour of storefront traffic posted through createRequest
 * (the newest capture with a diff is the request page's), a day of older
 * traffic loaded with SQL, and a few other gates of various ages and diff
 * rates, every capture with its endpoint and signature. Returns what to
 * photograph.
 */
export async function seedShowcase(stack: RealHubStack): Promise<{ gateId: string; requestId: string }> {
  const sql = stack.api.database.db.sql
  const now = Date.now()
  for (const g of GATES) {
    const { id } = await createGate(stack.api, g.name, g.live, g.shadow)
    if (g.count > 0) await seedBulkCaptures(sql, id, g.count, { spanMs: DAY - HOUR, endAgoMs: (g.ageDays % 7) * 60_000, diffEvery: g.diffEvery })
    await sql`UPDATE gates SET created_at = now() - make_interval(days => ${g.ageDays}) WHERE id = ${id}`
  }

  const catalog = await createGate(stack.api, 'catalog-v2 canary', 'http://catalog.prod.internal:8080', 'http://catalog-v2.canary.internal:8080')
  await seedBulkCaptures(sql, catalog.id, 12_480, { spanMs: DAY - 2 * HOUR, endAgoMs: HOUR, diffEvery: 14 })
  await sql`UPDATE gates SET created_at = now() - interval '3 days' WHERE id = ${catalog.id}`
  // Rows written with SQL have no endpoint or signature yet: the migrator's backfill gives them theirs.
  await backfillInsights(sql)
  await postCaptures(stack.api, catalog.id, catalogTraffic(150, now - 60_000))
  const [request] = await postCaptures(stack.api, catalog.id, [showcase(now)])
  return { gateId: catalog.id, requestId: request!.id }
}
