/**
 * What a finished comparison leaves behind for the garbage collector:
 * nothing that a minor (eden) collection keeps. When one did, a fifth of
 * all the proxy allocated was promoted at every minor collection and
 * waited for a full one, whose pauses were the open loop's p99
 * (docs/proxy.md "Garbage collection"). The shadow handler runs in
 * process with upstreams that answer from memory: the property is the
 * pipeline's, and the network's buffers are Bun's to keep as it likes.
 */
import { expect, test } from 'bun:test'
import { edenGC, fullGC } from 'bun:jsc'
import { createLogger } from '../../../../src/log/index.ts'
import { createShadowHandler } from '../../../../src/proxy/index.ts'
import { shadowClientOf, type ShadowClient, type UpstreamClient, type UpstreamPool } from '../../../../src/proxy/upstream/upstream-client.ts'
import { testShadowSettings } from '../../../support/shadow-settings.ts'

const BODY = new TextEncoder().encode(JSON.stringify({ data: Array.from({ length: 20 }, (_, id) => ({ id, name: 'n'.repeat(40) })) }))
const JSON_TYPE = 'application/json'
const BATCH = 50

test('a finished comparison’s objects do not survive a minor collection', async () => {
  /** The shadow's body of every comparison, each its own object, watched. */
  let shadowBodies: WeakRef<Uint8Array>[] = []
  const live: UpstreamClient = {
    target: 'live',
    baseUrl: 'http://live.invalid',
    async send() {
      const headers = { 'content-type': JSON_TYPE, 'content-length': String(BODY.byteLength) }
      return { response: new Response(BODY, { headers }), latencyMs: 0.1, done() {} }
    },
  }
  const shadow: ShadowClient = shadowClientOf(async () => {
    const body = BODY.slice()
    shadowBodies.push(new WeakRef(body))
    return { kind: 'complete', status: 200, headers: { 'Content-Type': [JSON_TYPE] }, body, latencyMs: 0.1 }
  })
  const pool: UpstreamPool = { client: () => live, shadowClient: () => shadow, liveRelayClient: () => undefined, close() {} }
  const handler = createShadowHandler(testShadowSettings('http://live.invalid', 'http://shadow.invalid'), {
    logger: createLogger({ level: 'warn', format: 'json', write: () => {} }),
    pool,
  })
  /**
   * In batches, each a task of its own: a collection that happens during a
   * task keeps every WeakRef target made so far in it, so that one coming
   * on its own during the run keeps at most a batch.
   */
  const run = async (count: number) => {
    for (let done = 0; done < count; done += BATCH) {
      let next = 0
      const lane = async () => {
        while (next++ < BATCH) {
          const response = await handler.fetch(new Request('http://127.0.0.1/products'), { clientAddress: '127.0.0.1' })
          expect(response.status).toBe(200)
          await response.bytes()
        }
      }
      await Promise.all(Array.from({ length: 8 }, lane))
      await Bun.sleep(0)
    }
    expect((await handler.drain()).aborted).toBe(0)
  }

  await run(2000) // the JIT's tiers, so that the run below allocates as the proxy does
  fullGC()
  shadowBodies = []
  await run(1000)
  expect(handler.inFlight).toBe(0)
  await Bun.sleep(0) // a new task: a WeakRef's target is kept until the task that made it ends
  edenGC()
  await Bun.sleep(0)
  const alive = shadowBodies.filter((ref) => ref.deref() !== undefined).length
  // 740-750 of 1,000 survived when the running comparisons were a Set; none since.
  expect(shadowBodies).toHaveLength(1000)
  expect(alive).toBeLessThan(250)
})
