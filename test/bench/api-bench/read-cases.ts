/** The read cases of the API benchmark, on the seeded gates (see seed.ts). */
import type { ReadCase } from './read-latency.ts'
import type { SeedResult } from './seed.ts'

/** The read targets: p50 of a first page, and of the 24 h stats. */
const LIST_MS = 20
const STATS_MS = 50
/** The insight reads' targets (docs/insights.md "API"): a 24 h window at a million captures. */
const INSIGHT_P50_MS = 50
const INSIGHT_P95_MS = 150

export function readCases(seed: SeedResult, detailId: string, signatureId: string): ReadCase[] {
  const gate = `/gates/${seed.bigGateId}`
  const list = `${gate}/requests`
  const now = Date.now()
  const iso = (msAgo: number) => encodeURIComponent(new Date(now - msAgo).toISOString())
  const hour = 3_600_000
  return [
    { name: 'listRequests, no filter', path: list, targetMs: LIST_MS },
    { name: 'listRequests has_diff=true', path: `${list}?has_diff=true`, targetMs: LIST_MS },
    { name: 'listRequests has_diff=false', path: `${list}?has_diff=false`, targetMs: LIST_MS },
    { name: 'listRequests method=GET', path: `${list}?method=GET`, targetMs: LIST_MS },
    { name: 'listRequests method=POST,DELETE', path: `${list}?method=POST,DELETE`, targetMs: LIST_MS },
    { name: 'listRequests from=-1h', path: `${list}?from=${iso(hour)}`, targetMs: LIST_MS },
    { name: 'listRequests from=-1h to=-30m method=GET', path: `${list}?from=${iso(hour)}&to=${iso(hour / 2)}&method=GET`, targetMs: LIST_MS },
    { name: 'listRequests from=-6h to=-5h has_diff=true', path: `${list}?from=${iso(6 * hour)}&to=${iso(5 * hour)}&has_diff=true`, targetMs: LIST_MS },
    { name: 'listRequests path=/orders/ (20% match)', path: `${list}?path=${encodeURIComponent('/orders/')}`, targetMs: LIST_MS },
    { name: 'listRequests path=/users/42 (0.2% match)', path: `${list}?path=${encodeURIComponent('/users/42')}`, targetMs: LIST_MS },
    { name: 'listRequests path=/users/42 from=-1h', path: `${list}?path=${encodeURIComponent('/users/42')}&from=${iso(hour)}`, targetMs: LIST_MS },
    { name: 'listRequests sort=path', path: `${list}?sort=path`, targetMs: LIST_MS },
    { name: 'listRequests offset=5000 (not a first page)', path: `${list}?offset=5000` },
    { name: 'getGate (24 h stats of the big gate)', path: gate, targetMs: STATS_MS },
    { name: `listGates, page of 50 (${seed.gateIds.length} gates)`, path: '/gates', targetMs: STATS_MS },
    { name: 'listGates limit=100', path: '/gates?limit=100', targetMs: STATS_MS },
    { name: 'getGlobalStats', path: '/stats' },
    { name: 'getRequest (detail)', path: `${list}/${detailId}` },
    ...insightCases(gate, signatureId, list),
  ]
}

/** The insight reads over the default window (the last 24 h), and listRequests' insight filters. */
function insightCases(gate: string, signatureId: string, list: string): ReadCase[] {
  const insight = { targetMs: INSIGHT_P50_MS, targetP95Ms: INSIGHT_P95_MS }
  const users = encodeURIComponent('/users/{id}')
  return [
    { name: 'listEndpoints (24 h)', path: `${gate}/endpoints`, ...insight },
    { name: 'listEndpoints sort=template', path: `${gate}/endpoints?sort=template`, ...insight },
    { name: 'listSignatures (24 h)', path: `${gate}/signatures`, ...insight },
    { name: 'listSignatures kind=error', path: `${gate}/signatures?kind=error`, ...insight },
    { name: 'listSignatures template=/users/{id}', path: `${gate}/signatures?template=${users}`, ...insight },
    { name: 'listFields (24 h)', path: `${gate}/fields`, ...insight },
    { name: 'listFields method=GET template=/users/{id}', path: `${gate}/fields?method=GET&template=${users}`, ...insight },
    { name: 'listRequests signature=<top signature>', path: `${list}?signature=${signatureId}`, targetMs: LIST_MS },
    { name: 'listRequests template=/users/{id}', path: `${list}?template=${users}`, targetMs: LIST_MS },
  ]
}
