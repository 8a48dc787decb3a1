import { describe, expect, test } from 'bun:test'
import { ConfigError } from '../../../src/config/config-error.ts'
import { loadHubConfig } from '../../../src/config/hub-config.ts'

describe('loadHubConfig', () => {
  test('runtime variables, port 8070 by default', () => {
    const config = loadHubConfig({ SVC_APP_API_BASE_URL: 'http://localhost:8090', SVC_APP_API_KEY: 'k'.repeat(16) })
    expect(config).toMatchObject({ port: 8070, apiBaseUrl: 'http://localhost:8090', apiKey: 'k'.repeat(16) })
  })

  test('no key: the page asks for one', () => {
    expect(loadHubConfig({ SVC_APP_API_BASE_URL: 'http://localhost:8090' }).apiKey).toBe('')
  })

  test('SVC_APP_ALLOWED_HOSTS: unset answers any host; set, only the hosts listed', () => {
    expect(loadHubConfig({ SVC_APP_API_BASE_URL: 'http://a' }).allowedHosts).toBeUndefined()
    const allowed = loadHubConfig({ SVC_APP_API_BASE_URL: 'http://a', SVC_APP_ALLOWED_HOSTS: '127.0.0.1,localhost' }).allowedHosts!
    expect(allowed.allows('localhost:8070')).toBe(true)
    expect(allowed.allows('rebound.evil.test:8070')).toBe(false)
  })

  test('a development build takes VITE_ values', () => {
    const config = loadHubConfig({ VITE_API_BASE_URL: 'http://127.0.0.1:8090', VITE_API_KEY: 'dev-key-dev-key-1' })
    expect(config.apiBaseUrl).toBe('http://127.0.0.1:8090')
    expect(config.buildTime).toEqual({ apiBaseUrl: 'http://127.0.0.1:8090', apiKey: 'dev-key-dev-key-1' })
  })

  test.each([
    [{}, 'SVC_APP_API_BASE_URL: is required (or VITE_API_BASE_URL for a development build)'],
    [{ SVC_APP_API_BASE_URL: 'localhost:8090' }, 'SVC_APP_API_BASE_URL: "localhost:8090" must be an http:// or https:// URL without a query or fragment'],
    [{ SVC_APP_API_BASE_URL: 'http://a', SVC_APP_PORT: 'x' }, 'SVC_APP_PORT: "x" must be an integer from 1 to 65535'],
    [{ SVC_APP_API_BASE_URL: 'http://a', SVC_APP_PORT: '0' }, 'SVC_APP_PORT: "0" must be an integer from 1 to 65535'],
    [{ VITE_API_BASE_URL: 'nope' }, 'VITE_API_BASE_URL: "nope" must be an http:// or https:// URL without a query or fragment'],
    // The API would refuse such a key on every call.
    [{ SVC_APP_API_BASE_URL: 'http://a', SVC_APP_ALLOWED_HOSTS: 'http://hub.example.com' }, 'SVC_APP_ALLOWED_HOSTS: "http://hub.example.com" must be a list of host names or IP addresses without ports, optionally *.example.com for subdomains ("http://hub.example.com" is not one)'],
    [{ SVC_APP_API_BASE_URL: 'http://a', SVC_APP_ALLOWED_HOSTS: ' , ' }, 'SVC_APP_ALLOWED_HOSTS: " , " must be a list of host names or IP addresses without ports, optionally *.example.com for subdomains'],
    [{ SVC_APP_API_BASE_URL: 'http://a', SVC_APP_API_KEY: 'short' }, 'SVC_APP_API_KEY: the value (5 characters, not shown) must be at least 16 characters'],
    [{ VITE_API_BASE_URL: 'http://a', VITE_API_KEY: 'SEKRIT_VITE' }, 'VITE_API_KEY: the value (11 characters, not shown) must be at least 16 characters'],
    // A URL that does not parse still hides what stands before its `@`.
    [{ SVC_APP_API_BASE_URL: ' http://u:SEKRIT@h/?x' }, 'SVC_APP_API_BASE_URL: " http://u:***@h/?x" must be an http:// or https:// URL without a query or fragment'],
  ])('%p fails with one line', (env, line) => {
    expect(() => loadHubConfig(env)).toThrow(new ConfigError('X', undefined, '').constructor as never)
    try {
      loadHubConfig(env)
    } catch (error) {
      expect((error as Error).message).toBe(line)
    }
  })
})
