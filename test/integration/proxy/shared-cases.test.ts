/**
 * The standalone proxy against the table of behaviours it shares with the
 * svc_gate module (test/support/shadow-cases.ts).
 */
import { describe } from 'bun:test'
import { shadowCaseSuite, type TargetConfig } from '../../support/shadow-cases.ts'
import { standaloneEnv, startTestProxy } from './proxy-harness.ts'

/** A case's settings as SVC_APP_* variables: `maxBodySize` → SVC_APP_MAX_BODY_SIZE. */
function envOf(config: TargetConfig): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(config)) {
    if (key === 'live' || key === 'shadow' || value === undefined) continue
    const name = `SVC_APP_${key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`
    env[name] = Array.isArray(value) ? value.join(',') : String(value)
  }
  return env
}

describe('the standalone proxy (cases shared with the svc_gate module)', () => {
  shadowCaseSuite(async (config) => {
    const proxy = await startTestProxy(standaloneEnv(config.live, config.shadow, envOf(config)))
    const { handler } = proxy.proxy
    return {
      url: proxy.url,
      records: () => proxy.records(),
      // From the registry itself: the admin server is gone after close().
      metricsText: async () => handler.metrics.registry.render(),
      get inFlight() {
        return handler.inFlight
      },
      close: () => proxy.stop(),
      stop: () => proxy.stop(),
    }
  })
})
