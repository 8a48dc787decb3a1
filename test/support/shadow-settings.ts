import { DEFAULT_DIFF_CONFIG } from '../../src/diff/index.ts'
import { compileShadowRules, DEFAULT_HTTP_CLIENT, type ShadowSettings } from '../../src/proxy/index.ts'

/**
 * Settings for tests that build the shadowing core directly: every request
 * shadowed, no body bound, default diff and HTTP client, timeouts and a
 * callbacks bound generous enough for a busy CI machine.
 */
export function testShadowSettings(liveUrl: string, shadowUrl: string, overrides: Partial<ShadowSettings> = {}): ShadowSettings {
  return {
    liveUrl,
    shadowUrl,
    gate: '',
    liveTimeoutMs: 5000,
    shadowTimeoutMs: 10_000,
    maxBodyBytes: 0,
    samplingRate: 1,
    shadowRules: compileShadowRules(''),
    maxConcurrentCallbacks: 200,
    httpClient: DEFAULT_HTTP_CLIENT,
    redactedFields: [],
    diff: DEFAULT_DIFF_CONFIG,
    ...overrides,
  }
}
