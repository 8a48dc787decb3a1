import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ApiClient } from '../../../src/cli/api-client.ts'
import { ensureReplayGate, type GateResource } from '../../../src/replay/replay-gate.ts'
import { startTestApi, TEST_API_KEY, type TestApi } from '../../support/api-server.ts'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

describe('ensureReplayGate against the API', () => {
  let t: TestApi
  let client: ApiClient

  beforeAll(async () => {
    t = await startTestApi('pglite')
    client = new ApiClient({ apiUrl: t.url, apiKey: TEST_API_KEY })
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t.stop())

  const source = (name: string, shadowUrl: string) => client.json<GateResource>('POST', '/gates', { name, live_url: 'http://live.shop', shadow_url: shadowUrl })

  test("pairs the source's live with the target, and finds the same gate on the next run", async () => {
    const shop = await source('shop', 'http://shadow.shop')
    const gate = await ensureReplayGate(client, shop, 'http://candidate.shop')
    expect(gate).toMatchObject({ name: 'replay: shop -> http://candidate.shop', live_url: 'http://live.shop', shadow_url: 'http://candidate.shop' })
    expect((await ensureReplayGate(client, shop, 'http://candidate.shop')).id).toBe(gate.id)
  })

  test("against the candidate the source already shadows, live_url is the source gate on the API (the pair is the source's)", async () => {
    const cart = await source('cart', 'http://candidate.cart')
    const gate = await ensureReplayGate(client, cart, 'http://candidate.cart')
    expect(gate).toMatchObject({ name: 'replay: cart -> http://candidate.cart', live_url: `${t.url}/gates/${cart.id}`, shadow_url: 'http://candidate.cart' })
    expect((await ensureReplayGate(client, cart, 'http://candidate.cart')).id).toBe(gate.id)
  })
})
