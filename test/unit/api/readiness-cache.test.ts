import { describe, expect, test } from 'bun:test'
import { readinessCache } from '../../../src/api/readiness-cache.ts'
import type { ApiContext } from '../../../src/api/api-context.ts'

/** A database that answers pings as told and counts them. */
function fakeContext() {
  const state = { up: true, pings: 0, accepting: true }
  const ctx = {
    lifecycle: {
      get accepting() {
        return state.accepting
      },
    },
    db: {
      ping: async () => {
        state.pings++
        return state.up
      },
    },
    schema: { problem: async () => undefined },
  } as unknown as Pick<ApiContext, 'lifecycle' | 'db' | 'schema'>
  return { ctx, state }
}

describe('readinessCache', () => {
  test('one check answers every probe for a second, then the next probe checks again', async () => {
    const { ctx, state } = fakeContext()
    let now = 0
    const readiness = readinessCache(ctx, { timeoutMs: 100, now: () => now })
    for (let i = 0; i < 50; i++) expect(await readiness()).toEqual({ ready: true })
    expect(state.pings).toBe(1)
    now = 999
    await readiness()
    expect(state.pings).toBe(1)
    now = 1000
    await readiness()
    expect(state.pings).toBe(2)
  })

  test('a 503 is reused as well', async () => {
    const { ctx, state } = fakeContext()
    state.up = false
    let now = 0
    const readiness = readinessCache(ctx, { timeoutMs: 100, now: () => now })
    for (let i = 0; i < 10; i++) expect(await readiness()).toEqual({ ready: false, reason: 'database unreachable' })
    expect(state.pings).toBe(1)
    state.up = true
    now = 1500
    expect(await readiness()).toEqual({ ready: true })
  })

  test('probes that arrive during a check share it', async () => {
    const { ctx, state } = fakeContext()
    const readiness = readinessCache(ctx, { timeoutMs: 100, now: () => 0 })
    await Promise.all(Array.from({ length: 20 }, () => readiness()))
    expect(state.pings).toBe(1)
  })

  test('shutdown answers 503 at once, whatever was cached', async () => {
    const { ctx, state } = fakeContext()
    const readiness = readinessCache(ctx, { timeoutMs: 100, now: () => 0 })
    expect(await readiness()).toEqual({ ready: true })
    state.accepting = false
    expect(await readiness()).toEqual({ ready: false, reason: 'shutting down' })
  })
})
