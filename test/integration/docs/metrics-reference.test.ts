/**
 * docs/reference/metrics.md against real scrapes: an API, a proxy in API
 * mode reporting to it, a standalone proxy and an `svc_gate` module, each
 * after one request, so that every family has series. Every family they
 * expose has a row with its type and every label it carries; every metric
 * the document lists is exposed by one of them. A metric added without its
 * row fails here.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createLogger } from '../../../src/log/index.ts'
import { svcGate, type SvcGate } from '../../../src/module/index.ts'
import { startTestApi, TEST_API_KEY, type TestApi } from '../../support/api-server.ts'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { codeSpans, readReference, tableRows, type TableRow } from '../../support/reference-doc.ts'
import { startUpstreamPair } from '../../support/upstreams.ts'
import { standaloneEnv, startTestProxy, type ProxyUnderTest } from '../proxy/proxy-harness.ts'

const METRIC_TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])

/** Exposed only by a primary over several workers, which these scrapes have not: test/integration/workers checks their rows. */
const WORKERS_ONLY = new Set(['svc_worker_restarts_total'])

interface Family {
  readonly type: string
  readonly labels: Set<string>
  readonly exposedBy: Set<string>
}

/** Families by name, from `# TYPE` lines and the label names of their samples (`le` left out). */
function families(text: string, source: string, into: Map<string, Family>): void {
  const types = new Map<string, string>()
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(match[1]!, match[2]!)
  for (const [name, type] of types) {
    const family = into.get(name) ?? { type, labels: new Set<string>(), exposedBy: new Set<string>() }
    family.exposedBy.add(source)
    into.set(name, family)
  }
  for (const match of text.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? /gm)) {
    const sample = match[1]!
    const name = types.has(sample) ? sample : sample.replace(/_(bucket|sum|count)$/, '')
    const family = into.get(name)
    if (family === undefined) continue
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) if (pair[1] !== 'le') family.labels.add(pair[1]!)
  }
}

/** The metric rows of the document: a name, then a type. */
function metricRows(doc: string): Map<string, TableRow> {
  const rows = new Map<string, TableRow>()
  for (const row of tableRows(doc)) {
    const type = (row[1] ?? '').replace(/`/g, '').trim()
    if (!METRIC_TYPES.has(type)) continue
    for (const name of codeSpans(row[0] ?? '')) {
      const bare = name.replace(/\{.*$/, '')
      if (/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(bare)) rows.set(bare, row)
    }
  }
  return rows
}

describe('docs/reference/metrics.md, against real scrapes', () => {
  const exposed = new Map<string, Family>()
  let api: TestApi
  let upstreams: Awaited<ReturnType<typeof startUpstreamPair>>
  let apiMode: ProxyUnderTest
  let standalone: ProxyUnderTest
  let gate: SvcGate

  beforeAll(async () => {
    upstreams = await startUpstreamPair()
    api = await startTestApi('postgres')
    const created = await api.call('POST', '/gates', { name: 'docs', live_url: upstreams.live.url, shadow_url: upstreams.shadow.url })
    const gateId = ((await created.json()) as { data: { id: string } }).data.id
    apiMode = await startTestProxy({ SVC_APP_API_URL: api.url, SVC_APP_GATE_ID: gateId, SVC_APP_API_KEY: TEST_API_KEY })
    standalone = await startTestProxy(standaloneEnv(upstreams.live.url, upstreams.shadow.url))
    gate = svcGate({ live: upstreams.live.url, shadow: upstreams.shadow.url }, { logger: createLogger({ level: 'error', format: 'json', write: () => {} }) })
    await (await fetch(`${apiMode.url}/docs`)).arrayBuffer()
    await (await fetch(`${standalone.url}/docs`)).arrayBuffer()
    await (await gate.fetch(new Request('http://127.0.0.1/docs'))).arrayBuffer()
    await apiMode.settled()
    await standalone.settled()
    await gate.close()
    await (await api.call('GET', '/gates')).arrayBuffer()
    families(await (await fetch(`${api.url}/metrics`)).text(), 'API', exposed)
    families(await apiMode.metricsText(), 'proxy in API mode', exposed)
    families(await standalone.metricsText(), 'standalone proxy', exposed)
    families(gate.metricsText(), 'module', exposed)
  }, DATABASE_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await apiMode?.stop()
    await standalone?.stop()
    await api?.stop()
    await upstreams?.stop()
  })

  const doc = readReference('metrics')
  const rows = metricRows(doc)

  test('has a row, with its type, for every family exposed', () => {
    const wrong: string[] = []
    for (const [name, family] of exposed) {
      const row = rows.get(name)
      if (row === undefined) wrong.push(`${name} (${family.type}, from ${[...family.exposedBy].join(', ')}) has no row`)
      else if ((row[1] ?? '').replace(/`/g, '').trim() !== family.type) wrong.push(`${name} is a ${family.type}, documented as ${row[1]}`)
    }
    expect(wrong).toEqual([])
  })

  test('names every label a family carries', () => {
    const wrong: string[] = []
    for (const [name, family] of exposed) {
      const labels = codeSpans(rows.get(name)?.[2] ?? '')
      for (const label of family.labels) if (!labels.has(label)) wrong.push(`${name}: label ${label}`)
    }
    expect(wrong).toEqual([])
  })

  test('lists no metric that no component exposes', () => {
    expect([...rows.keys()].filter((name) => !exposed.has(name) && !WORKERS_ONLY.has(name))).toEqual([])
  })
})
