/** The read cases of the API benchmark, on the seeded gates (see seed.ts). */
import type { ReadCase } from './read-latency.ts'
import type { SeedResult } from './seed.ts'

/** Issue 3's read targets: p50 of a first page, and of the 24 h stats. */
const LIST_MS = 20
const STATS_MS = 50

export function readCases(seed: SeedResult, detailId: string): ReadCase[] {
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
  ]
}
