import { describe, expect, test } from 'bun:test'
import { resolveConfig } from '../../../hub/src/lib/config.ts'
import { clearSessionKey, readSessionKey, writeSessionKey } from '../../../hub/src/lib/key-store.ts'

describe('resolveConfig', () => {
  test('runtime config (/config.js) wins over the build-time values', () => {
    expect(resolveConfig({ apiBaseUrl: 'https://api.prod/', apiKey: 'runtime-key-0123456' }, { apiBaseUrl: 'http://dev', apiKey: 'build-key-0123456789' }, null)).toEqual({
      apiBaseUrl: 'https://api.prod',
      apiKey: 'runtime-key-0123456',
      keySource: 'runtime',
    })
  })

  test('build-time values (VITE_*) fill what the runtime config leaves empty', () => {
    expect(resolveConfig({ apiBaseUrl: '', apiKey: ' ' }, { apiBaseUrl: 'http://127.0.0.1:8090', apiKey: 'build-key-0123456789' }, null)).toEqual({
      apiBaseUrl: 'http://127.0.0.1:8090',
      apiKey: 'build-key-0123456789',
      keySource: 'build',
    })
  })

  test('a key typed for this tab wins over a configured one', () => {
    const c = resolveConfig({ apiBaseUrl: 'http://a', apiKey: 'configured-key-012345' }, {}, 'typed-key-0123456789')
    expect(c.keySource).toBe('session')
    expect(c.apiKey).toBe('typed-key-0123456789')
  })

  test('no key anywhere: keySource none, so the hub asks', () => {
    expect(resolveConfig(undefined, {}, null)).toEqual({ apiBaseUrl: '', apiKey: '', keySource: 'none' })
  })
})

describe('key store (sessionStorage only)', () => {
  class MemoryStorage {
    #m = new Map<string, string>()
    getItem(k: string) {
      return this.#m.get(k) ?? null
    }
    setItem(k: string, v: string) {
      this.#m.set(k, v)
    }
    removeItem(k: string) {
      this.#m.delete(k)
    }
  }

  test('writes, reads and clears', () => {
    const s = new MemoryStorage() as unknown as Storage
    expect(readSessionKey(s)).toBeNull()
    expect(writeSessionKey('k'.repeat(16), s)).toBe(true)
    expect(readSessionKey(s)).toBe('k'.repeat(16))
    clearSessionKey(s)
    expect(readSessionKey(s)).toBeNull()
  })

  test('a storage that throws (disabled by the browser) is survived', () => {
    const broken = {
      getItem() {
        throw new Error('denied')
      },
      setItem() {
        throw new Error('denied')
      },
      removeItem() {
        throw new Error('denied')
      },
    } as unknown as Storage
    expect(readSessionKey(broken)).toBeNull()
    expect(writeSessionKey('x', broken)).toBe(false)
    expect(() => clearSessionKey(broken)).not.toThrow()
  })
})
