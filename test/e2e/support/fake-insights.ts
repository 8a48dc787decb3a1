import { endpointOf, generalisedPath, signatureOf } from '../../../src/insights/index.ts'
import type { Signature } from '../../../src/insights/index.ts'
import type { FakeRequest } from './fake-data.ts'

/**
 * The fake API's endpoints, signatures and fields reads (docs/insights.md),
 * computed from its captures with the project's own rules, so the hub's
 * smoke test and `--fake` screenshots see the shapes the real API gives.
 * Counted exactly; the real API reads rollups.
 */

interface Insight {
  readonly template: string
  readonly signature: Signature | undefined
}

const memo = new WeakMap<FakeRequest, Insight>()

export function insightOf(r: FakeRequest): Insight {
  let found = memo.get(r)
  if (!found) {
    const endpoint = endpointOf(r.method, r.path)
    const signature = signatureOf(endpoint, {
      live: { status: r.live_response.status_code, body: Buffer.from(r.live_response.body, 'base64') },
      shadow: { status: r.shadow_response.status_code, body: Buffer.from(r.shadow_response.body, 'base64') },
      ops: r.diff.content,
    })
    found = { template: endpoint.template, signature }
    memo.set(r, found)
  }
  return found
}

type Row = Record<string, unknown>

/** The captures in `from`..`to` (default: the last 24 h), of one endpoint when `method` and `template` are given. */
function inWindow(all: readonly FakeRequest[], q: URLSearchParams): FakeRequest[] {
  const from = q.get('from') ? Date.parse(q.get('from')!) : Date.now() - 86_400_000
  const to = q.get('to') ? Date.parse(q.get('to')!) : Infinity
  return all.filter((r) => {
    const t = Date.parse(r.created_at)
    return t >= from && t <= to && (!q.get('method') || q.get('method') === r.method) && (!q.get('template') || q.get('template') === insightOf(r).template)
  })
}

function percentiles(values: number[]): { p50: number | null; p95: number | null } {
  if (values.length === 0) return { p50: null, p95: null }
  const sorted = [...values].sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!
  return { p50: at(0.5), p95: at(0.95) }
}

function groupBy<T>(list: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const x of list) {
    const k = key(x)
    const group = out.get(k)
    if (group) group.push(x)
    else out.set(k, [x])
  }
  return out
}

export function endpointRows(all: readonly FakeRequest[], q: URLSearchParams): Row[] {
  const groups = groupBy(inWindow(all, q), (r) => `${r.method} ${insightOf(r).template}`)
  return [...groups.values()].map((list) => {
    const diffs = list.filter((r) => insightOf(r).signature?.kind === 'diff').length
    const errors = list.filter((r) => insightOf(r).signature?.kind === 'error').length
    return {
      method: list[0]!.method,
      template: insightOf(list[0]!).template,
      requests: list.length,
      diffs,
      errors,
      diff_rate: diffs / list.length,
      live_latency_ms: percentiles(list.map((r) => r.live_response.latency_ms)),
      shadow_latency_ms: percentiles(list.map((r) => r.shadow_response.latency_ms)),
    }
  })
}

export function signatureRows(all: readonly FakeRequest[], q: URLSearchParams): Row[] {
  const signed = inWindow(all, q).filter((r) => insightOf(r).signature)
  const kind = q.get('kind')
  const groups = groupBy(
    signed.filter((r) => !kind || insightOf(r).signature!.kind === kind),
    (r) => insightOf(r).signature!.id,
  )
  return [...groups.values()].map((list) => {
    const s = insightOf(list[0]!).signature!
    const times = list.map((r) => r.created_at).sort()
    const newest = list.reduce((a, b) => (a.created_at >= b.created_at ? a : b))
    return {
      id: s.id,
      kind: s.kind,
      method: s.method,
      template: s.template,
      ops: s.kind === 'diff' ? s.ops : [],
      count: list.length,
      share: list.length / signed.length,
      first_seen: times[0],
      last_seen: times[times.length - 1],
      example_request_id: newest.id,
      overflow: s.overflow,
      truncated: s.kind === 'diff' ? s.truncated : false,
      live_error: s.kind === 'error' ? s.liveError : null,
      shadow_error: s.kind === 'error' ? s.shadowError : null,
    }
  })
}

export function fieldRows(all: readonly FakeRequest[], q: URLSearchParams): Row[] {
  const list = inWindow(all, q)
  const perEndpoint = groupBy(list, (r) => `${r.method} ${insightOf(r).template}`)
  const counts = new Map<string, { method: string; template: string; op: string; path: string; count: number }>()
  for (const r of list) {
    if (insightOf(r).signature?.kind !== 'diff') continue
    const seen = new Set<string>()
    for (const o of r.diff.content) {
      const path = generalisedPath(o.path)
      const key = JSON.stringify([r.method, insightOf(r).template, o.op, path])
      if (seen.has(key)) continue
      seen.add(key)
      const row = counts.get(key) ?? { method: r.method, template: insightOf(r).template, op: o.op, path, count: 0 }
      row.count++
      counts.set(key, row)
    }
  }
  return [...counts.values()].map((f) => ({ ...f, rate: f.count / perEndpoint.get(`${f.method} ${f.template}`)!.length }))
}
