import type { InsightsStore } from '../store/insights-store.ts'
import type { Page } from '../store/rows.ts'
import { noiseOnlyDiffs, type VerdictFacts } from '../verdict/index.ts'

/** Rows per read of the insight pages; a gate has at most a few thousand endpoints. */
const PAGE = 1000

/**
 * What a verdict is computed from (docs/ci.md "Checks"), read from the
 * insight rollups only, never from the captures: per endpoint its
 * requests, diffs and latency p95s (listEndpoints), and from the error
 * signatures (listSignatures, kind `error`) the failed shadows (those that
 * name a shadow failure; an `(other)` error signature, which keeps no
 * class, is counted as one too) and the captures whose live alone failed,
 * which are taken out of the requests: they hold no answer of live's to
 * compare with, and a window of nothing else (live down) must not pass. With `ignoreNoise`, the noise-only diffs from the
 * diff signatures (listSignatures, kind `diff`) and the fields'
 * classifications (listFields) of the same window; without, neither is
 * read.
 */
export async function readVerdictFacts(
  insights: InsightsStore,
  gateId: string,
  window: { from: Date; to: Date },
  ignoreNoise: boolean,
): Promise<VerdictFacts> {
  const [endpoints, errors, diffs, fields] = await Promise.all([
    everyPage((offset) => insights.endpoints(gateId, { ...window, limit: PAGE, offset, sort: 'template', order: 'asc' })),
    everyPage((offset) => insights.signatures(gateId, { ...window, limit: PAGE, offset, sort: 'count', order: 'desc', kind: 'error' })),
    ignoreNoise ? everyPage((offset) => insights.signatures(gateId, { ...window, limit: PAGE, offset, sort: 'count', order: 'desc', kind: 'diff' })) : [],
    ignoreNoise ? everyPage((offset) => insights.fields(gateId, { ...window, limit: PAGE, offset, sort: 'path', order: 'asc' })) : [],
  ])
  const count = (signatures: readonly { count: number }[]) => signatures.reduce((sum, s) => sum + s.count, 0)
  const liveFailures = count(errors.filter((s) => s.shadow_error === null && !s.overflow))
  return {
    requests: endpoints.reduce((sum, endpoint) => sum + endpoint.requests, 0) - liveFailures,
    liveFailures,
    diffs: endpoints.reduce((sum, endpoint) => sum + endpoint.diffs, 0),
    noiseOnlyDiffs: noiseOnlyDiffs(diffs, fields),
    shadowErrors: count(errors.filter((s) => s.shadow_error !== null || s.overflow)),
    endpoints: endpoints.map((endpoint) => ({
      method: endpoint.method,
      template: endpoint.template,
      livePercentile95: endpoint.live_latency_ms.p95,
      shadowPercentile95: endpoint.shadow_latency_ms.p95,
    })),
  }
}

async function everyPage<T>(read: (offset: number) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = []
  for (let offset = 0; ; offset += PAGE) {
    const page = await read(offset)
    items.push(...page.items)
    if (page.items.length < PAGE || offset + PAGE >= page.total) return items
  }
}
