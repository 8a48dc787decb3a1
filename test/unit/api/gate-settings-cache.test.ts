import { describe, expect, test } from 'bun:test'
import { DEFAULT_DIFF_CONFIG } from '../../../src/diff/index.ts'
import { GateSettingsCache } from '../../../src/api/gate-settings-cache.ts'
import type { GateSettings } from '../../../src/store/rows.ts'

function fakeStore(initial: Record<string, GateSettings>) {
  const rows = { ...initial }
  let reads = 0
  return {
    rows,
    get reads() {
      return reads
    },
    async settings(id: string) {
      reads++
      return rows[id]
    },
  }
}

const settings = (id: string, fields: string[] = []): GateSettings => ({
  id,
  diff_config: DEFAULT_DIFF_CONFIG,
  redacted_fields: fields,
  retention: '',
  endpoints: [],
})

describe('GateSettingsCache', () => {
  test('reuses settings within the TTL and reads again after it', async () => {
    let now = 0
    const store = fakeStore({ a: settings('a') })
    const cache = new GateSettingsCache(store, { ttlMs: 1000, now: () => now })
    await cache.get('a')
    await cache.get('a')
    expect(store.reads).toBe(1)
    now = 1000
    await cache.get('a')
    expect(store.reads).toBe(2)
  })

  test('an update on this replica is seen at once', async () => {
    const store = fakeStore({ a: settings('a') })
    const cache = new GateSettingsCache(store, { now: () => 0 })
    await cache.get('a')
    store.rows.a = settings('a', ['body.secret'])
    cache.invalidate('a')
    expect((await cache.get('a'))?.redacted_fields).toEqual(['body.secret'])
  })

  test('an unknown gate is not remembered', async () => {
    const store = fakeStore({})
    const cache = new GateSettingsCache(store, { now: () => 0 })
    expect(await cache.get('b')).toBeUndefined()
    store.rows.b = settings('b')
    expect(await cache.get('b')).toEqual(settings('b'))
  })

  test('keeps at most maxEntries', async () => {
    const store = fakeStore({ a: settings('a'), b: settings('b'), c: settings('c') })
    const cache = new GateSettingsCache(store, { maxEntries: 2, now: () => 0 })
    for (const id of ['a', 'b', 'c', 'c', 'b']) await cache.get(id)
    expect(store.reads).toBe(3)
    await cache.get('a')
    expect(store.reads).toBe(4)
  })
})
