import { describe, expect, test } from 'bun:test'
import { ConfigError } from '../../../src/config/config-error.ts'
import { loadVerdictCliConfig } from '../../../src/config/verdict-cli-config.ts'

const GATE = '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40'
const ENV = { SVC_APP_API_URL: 'http://127.0.0.1:8090', SVC_APP_API_KEY: 'k'.repeat(16) }
const NOW = new Date('2026-11-26T12:00:00Z')

function load(argv: string[], env: Record<string, string> = ENV) {
  return loadVerdictCliConfig(env, argv, NOW)
}

function refusal(argv: string[], env: Record<string, string> = ENV): string {
  try {
    load(argv, env)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error('accepted')
}

describe('loadVerdictCliConfig', () => {
  test('thresholds by their query names, the window ending now, the API from the environment', () => {
    expect(load(['--gate', GATE.toUpperCase(), '--window', '2h', '--max-diff-rate', '0.02', '--min-requests=5', '--junit', 'r.xml'])).toEqual({
      gateId: GATE,
      window: { from: new Date('2026-11-26T10:00:00Z'), to: NOW },
      thresholds: { max_diff_rate: 0.02, min_requests: 5 },
      ignoreNoise: undefined,
      junitFile: 'r.xml',
      api: { apiUrl: 'http://127.0.0.1:8090', apiKey: 'k'.repeat(16) },
    })
  })

  test('flags override the environment; no window leaves both ends to the API', () => {
    const config = load(['--gate', GATE, '--api-url', 'https://api.example.com/', '--api-key', 'x'.repeat(20)])
    expect(config).toMatchObject({ window: { from: undefined, to: undefined }, api: { apiUrl: 'https://api.example.com', apiKey: 'x'.repeat(20) } })
  })

  test.each([
    [[], undefined],
    [['--ignore-noise'], true],
    [['--no-ignore-noise'], false],
  ])('noise switches %p: ignoreNoise %p (undefined leaves the API default)', (argv, ignoreNoise) => {
    expect(load(['--gate', GATE, ...argv])).toMatchObject({ ignoreNoise })
  })

  test('--help wins over everything else', () => {
    expect(load(['--help', '--gate', 'nonsense'])).toBe('help')
  })

  test.each([
    [[], '--gate: is required'],
    [['--gate', 'g1'], '--gate: "g1" must be a UUID such as 0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40'],
    [['--gate', GATE, '--max-diff-rate', '1.5'], '--max-diff-rate: "1.5" must be a number from 0 to 1'],
    [['--gate', GATE, '--max-error-rate', 'x'], '--max-error-rate: "x" must be a number from 0 to 1'],
    [['--gate', GATE, '--max-latency-ratio', '0'], '--max-latency-ratio: "0" must be a number above 0 and at most 1000'],
    [['--gate', GATE, '--min-requests', '0'], '--min-requests: "0" must be an integer from 1 to 1000000000'],
    [['--gate', GATE, '--window', '1h', '--from', '2026-11-26T10:00:00Z'], '--window: cannot be combined with --from or --to: give either'],
    [['--gate', GATE, '--from', '2026-11-26T10:00:00Z', '--to', '2026-11-26T09:00:00Z'], '--from: "2026-11-26T10:00:00Z" must not be after --to'],
    [['--gate', GATE, '--from', 'yesterday'], '--from: "yesterday" must be an RFC 3339 date-time such as 2026-01-02T15:04:05Z'],
    [['--gate', GATE, '--window', '0s'], '--window: "0s" must be a positive duration'],
    [['--gate', GATE, '--max-diff-rat', '0.1'], '--max-diff-rat: is not an option of bun run verdict; see `bun run verdict -- --help`'],
    [['--gate', GATE, 'extra'], 'bun run verdict: takes only --flags, not the argument "extra"; see `bun run verdict -- --help`'],
    [['--gate'], '--gate: needs a value (write --flag=-value for one that starts with a dash)'],
    [['--gate', GATE, '--api-key', 'short-secret'], '--api-key: the value (12 characters, not shown) must be at least 16 characters'],
    [['--gate', GATE, '--junit', ''], '--junit: "" must be a file path'],
    [['--gate', GATE, '--ignore-noise', '--no-ignore-noise'], '--ignore-noise: cannot be combined with --no-ignore-noise: give either'],
    [['--gate', GATE, '--ignore-noise=false'], '--ignore-noise: is a switch and takes no value'],
  ])('%p is refused: %s', (argv, line) => {
    expect(refusal(argv)).toBe(line)
  })

  test('without an API address or key the line names the variable and its flag', () => {
    expect(refusal(['--gate', GATE], {})).toBe('SVC_APP_API_URL: is required (or --api-url): the API to ask')
    expect(refusal(['--gate', GATE], { SVC_APP_API_URL: 'http://a' })).toBe("SVC_APP_API_KEY: is required (or --api-key): the API's bearer key")
  })
})
