import { describe, expect, test } from 'bun:test'
import { ConfigError } from '../../../src/config/config-error.ts'
import { loadReplayCliConfig, REPLAY_DEFAULTS } from '../../../src/config/replay-cli-config.ts'

const GATE = '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40'
const ENV = { SVC_APP_API_URL: 'http://127.0.0.1:8090', SVC_APP_API_KEY: 'k'.repeat(16) }
const NOW = new Date('2026-11-26T12:00:00Z')
const BASE = ['--gate', GATE, '--target', 'http://127.0.0.1:3001/']

function refusal(argv: string[]): string {
  try {
    loadReplayCliConfig(ENV, argv, NOW)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error('accepted')
}

describe('loadReplayCliConfig', () => {
  test('safe methods, no rate limit and the documented defaults unless told otherwise', () => {
    const config = loadReplayCliConfig(ENV, BASE, NOW)
    expect(config).toMatchObject({
      gateId: GATE,
      target: 'http://127.0.0.1:3001',
      window: { from: undefined, to: undefined },
      limit: undefined,
      rate: Infinity,
      concurrency: REPLAY_DEFAULTS.concurrency,
      methods: new Set(['GET', 'HEAD', 'OPTIONS']),
      headers: new Map(),
      allowRedacted: false,
      timeoutMs: 10_000,
      progressIntervalMs: 5_000,
      thresholds: {},
      ignoreNoise: undefined,
      junitFile: undefined,
    })
  })

  test('every flag, repeated headers by their lower-cased name, the last one of a name winning', () => {
    const config = loadReplayCliConfig(
      ENV,
      [...BASE, '--window', '24h', '--limit', '500', '--rate', '2.5', '--concurrency', '4', '--method', 'get, Post', '--header', 'Authorization: Bearer a:b', '--header', 'X-Tenant:  7 ', '--header', 'authorization: Bearer c', '--allow-redacted', '--timeout', '2s', '--progress-interval', '1m', '--max-error-rate', '0', '--no-ignore-noise', '--junit', 'out.xml'],
      NOW,
    )
    expect(config).toMatchObject({
      window: { from: new Date('2026-11-25T12:00:00Z'), to: NOW },
      limit: 500,
      rate: 2.5,
      concurrency: 4,
      methods: new Set(['GET', 'POST']),
      headers: new Map([
        ['authorization', { name: 'authorization', value: 'Bearer c' }],
        ['x-tenant', { name: 'X-Tenant', value: '7' }],
      ]),
      allowRedacted: true,
      timeoutMs: 2000,
      progressIntervalMs: 60_000,
      thresholds: { max_error_rate: 0 },
      ignoreNoise: false,
      junitFile: 'out.xml',
    })
  })

  test.each([
    [['--gate', GATE], '--target: is required'],
    [[...BASE, '--rate', '0'], '--rate: "0" must be a number of requests per second above 0'],
    [[...BASE, '--concurrency', '0'], '--concurrency: "0" must be an integer from 1 to 256'],
    [[...BASE, '--limit=-1'], '--limit: "-1" must be an integer of at least 1'],
    [[...BASE, '--limit', '-1'], '--limit: needs a value (write --flag=-value for one that starts with a dash)'],
    // Empty items of a list are dropped, as in listRequests' method filter.
    [[...BASE, '--method', 'GET,,'], undefined],
    [[...BASE, '--method', 'G ET'], '--method: "G ET" must be a comma-separated list of methods such as GET,HEAD,POST'],
    [[...BASE, '--allow-redacted=yes'], '--allow-redacted: is a switch and takes no value'],
    [[...BASE, '--target', 'http://a/?q=1'], '--target: "http://a/?q=1" must be an http:// or https:// URL without a query or fragment'],
    // A URL flag's password is masked, as a *_URL variable's is.
    [[...BASE, '--target', 'http://ci:s3cret@a/?q=1'], '--target: "http://ci:***@a/?q=1" must be an http:// or https:// URL without a query or fragment'],
    [[...BASE, '--api-url', 'https://ci:s3cret@api.example/?x=1'], '--api-url: "https://ci:***@api.example/?x=1" must be an http:// or https:// URL without a query or fragment'],
  ] as const)('%#: %p', (argv, line) => {
    if (line === undefined) expect(loadReplayCliConfig(ENV, [...argv], NOW)).toMatchObject({ methods: new Set(['GET']) })
    else expect(refusal([...argv])).toBe(line)
  })

  test('a malformed --header is refused without repeating its text, which may be a secret', () => {
    const line = refusal([...BASE, '--header', 'Authorization Bearer s3cret'])
    expect(line).toStartWith('--header: must be "Name: value"')
    expect(line).not.toContain('s3cret')
  })
})
