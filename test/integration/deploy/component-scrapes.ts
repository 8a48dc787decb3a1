/**
 * `/metrics` of each running component, after traffic that makes every
 * series of the alert rules and dashboards exist: the real API (PostgreSQL),
 * a standalone proxy and a proxy in API mode reporting to that API.
 */
import { startTestApi, TEST_API_KEY } from '../../support/api-server.ts'
import { startUpstreamPair } from '../../support/upstreams.ts'
import { standaloneEnv, startTestProxy, type ProxyUnderTest } from '../proxy/proxy-harness.ts'

export interface ComponentScrapes {
  readonly api: string
  readonly standaloneProxy: string
  readonly apiModeProxy: string
}

/** Paths of test/support/upstreams.ts: one that matches, one that differs (each side says its name). */
const PATHS = ['/json', '/whoami']

export async function scrapeComponents(): Promise<ComponentScrapes> {
  const pair = await startUpstreamPair()
  const api = await startTestApi('postgres')
  const proxies: ProxyUnderTest[] = []
  try {
    const created = await api.call('POST', '/gates', { name: 'deploy-metrics', live_url: pair.live.url, shadow_url: pair.shadow.url })
    const gateId = ((await created.json()) as { data: { id: string } }).data.id
    const standalone = await startTestProxy(standaloneEnv(pair.live.url, pair.shadow.url))
    proxies.push(standalone)
    const apiMode = await startTestProxy({ SVC_APP_API_URL: api.url, SVC_APP_API_KEY: TEST_API_KEY, SVC_APP_GATE_ID: gateId })
    proxies.push(apiMode)
    for (const proxy of proxies) {
      for (const path of PATHS) await (await fetch(proxy.url + path)).arrayBuffer()
      await proxy.settled()
    }
    return {
      api: await (await fetch(api.url + '/metrics')).text(),
      standaloneProxy: await standalone.metricsText(),
      apiModeProxy: await apiMode.metricsText(),
    }
  } finally {
    for (const proxy of proxies) await proxy.stop()
    await api.stop()
    await pair.stop()
  }
}

/**
 * Every sample name the texts expose (a histogram's `_bucket`, `_sum` and
 * `_count`, and its own name), each with the label names seen on it.
 */
export function exposedNames(texts: readonly string[]): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>()
  const labelsOf = (name: string) => names.get(name) ?? names.set(name, new Set()).get(name)!
  for (const text of texts) {
    for (const line of text.split('\n')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line)
      if (type) {
        const [, name, kind] = type
        labelsOf(name!)
        if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) labelsOf(name! + suffix)
        continue
      }
      if (line === '' || line.startsWith('#')) continue
      const sample = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s/.exec(line)
      if (!sample) throw new Error(`not a sample line: ${line}`)
      const labels = labelsOf(sample[1]!)
      for (const [, label] of (sample[2] ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)="(?:[^"\\]|\\.)*"/g)) labels.add(label!)
    }
  }
  return names
}
