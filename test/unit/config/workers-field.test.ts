import { describe, expect, test } from 'bun:test'
import { availableParallelism } from 'node:os'
import { loadApiConfig } from '../../../src/config/api-config.ts'
import { ConfigError } from '../../../src/config/config-error.ts'
import { loadProxyConfig } from '../../../src/config/proxy-config.ts'
import { resolveWorkers } from '../../../src/config/workers-field.ts'

const API = { SVC_APP_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/svc', SVC_APP_API_KEY: 'a-key-of-sixteen-chars' }
const PROXY = { SVC_APP_LIVE_URL: 'http://127.0.0.1:9001', SVC_APP_SHADOW_URL: 'http://127.0.0.1:9002' }
const LINUX = process.platform === 'linux'

function lineOf(load: () => unknown): string {
  try {
    load()
  } catch (error) {
    if (error instanceof ConfigError) return error.message
    throw error
  }
  throw new Error('expected a ConfigError')
}

describe('SVC_APP_WORKERS', () => {
  test('defaults to one worker in the API and the proxy', () => {
    expect(loadApiConfig(API).workers).toBe(1)
    expect(loadProxyConfig(PROXY).workers).toBe(1)
  })

  test.if(LINUX)('takes a count, and auto as the cores this process may use', () => {
    expect(loadApiConfig({ ...API, SVC_APP_WORKERS: '3' }).workers).toBe(3)
    expect(loadProxyConfig({ ...PROXY, SVC_APP_WORKERS: ' 2 ' }).workers).toBe(2)
    expect(loadProxyConfig({ ...PROXY, SVC_APP_WORKERS: 'auto' }).workers).toBe(availableParallelism())
    expect(loadApiConfig({ ...API, SVC_APP_WORKERS: '' }).workers).toBe(1)
  })

  const bad = ['0', '-1', '1.5', 'two', 'AUTO', '257', '0x2', '1e1']
  for (const value of bad) {
    test(`refuses ${JSON.stringify(value)} with one line naming the rule`, () => {
      expect(lineOf(() => loadProxyConfig({ ...PROXY, SVC_APP_WORKERS: value }))).toBe(
        `SVC_APP_WORKERS: ${JSON.stringify(value)} must be auto or an integer from 1 to 256`,
      )
      expect(lineOf(() => loadApiConfig({ ...API, SVC_APP_WORKERS: value }))).toStartWith('SVC_APP_WORKERS: ')
    })
  }

  test.if(LINUX)('more than one API worker on PGlite is refused: one process owns its directory', () => {
    for (const url of ['pglite://memory', 'pglite:///var/lib/svc']) {
      expect(lineOf(() => loadApiConfig({ ...API, SVC_APP_DATABASE_URL: url, SVC_APP_WORKERS: '2' }))).toBe(
        'SVC_APP_WORKERS: "2" must be 1 with a pglite:// SVC_APP_DATABASE_URL: one process owns a PGlite database; use PostgreSQL for more workers',
      )
    }
    expect(loadApiConfig({ ...API, SVC_APP_DATABASE_URL: 'pglite://memory', SVC_APP_WORKERS: '1' }).workers).toBe(1)
  })
})

describe('resolveWorkers', () => {
  test('auto is the cores, at least 1', () => {
    expect(resolveWorkers('auto', 'auto', { cores: 8, platform: 'linux' })).toBe(8)
    expect(resolveWorkers('auto', 'auto', { cores: 1, platform: 'linux' })).toBe(1)
    expect(resolveWorkers('auto', 'auto', { cores: 0, platform: 'linux' })).toBe(1)
  })

  test('one worker runs anywhere; more need SO_REUSEPORT balancing, Linux only', () => {
    expect(resolveWorkers(1, '1', { cores: 8, platform: 'darwin' })).toBe(1)
    expect(resolveWorkers('auto', 'auto', { cores: 1, platform: 'win32' })).toBe(1)
    expect(() => resolveWorkers(2, '2', { cores: 8, platform: 'darwin' })).toThrow(
      'SVC_APP_WORKERS: "2" must be 1 on darwin: several workers share one port through SO_REUSEPORT, which spreads connections over processes on Linux only',
    )
    expect(() => resolveWorkers('auto', 'auto', { cores: 4, platform: 'darwin' })).toThrow('"auto" must be 1 on darwin (auto is 4 here)')
  })
})
