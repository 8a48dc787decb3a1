/**
 * The alert rules and the dashboards cannot drift from the code: every
 * metric they name, and every label they match or group on, is in a scrape
 * of the real API or of a real proxy (docs/metrics.md "Alerts", "Dashboards").
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { alertQueries, dashboardQueries, dashboards, type DeployedQuery } from '../../support/deployed-queries.ts'
import { promqlNames } from '../../support/promql-names.ts'
import { exposedNames, scrapeComponents } from './component-scrapes.ts'

/** Labels Prometheus adds to every series it scrapes. */
const TARGET_LABELS = new Set(['job', 'instance'])

/** What is missing from the scrapes for this expression, as readable lines; [] when nothing is. */
function missingNames(query: DeployedQuery, exposed: Map<string, Set<string>>): string[] {
  const { selectors, groupingLabels } = promqlNames(query.expr)
  const missing: string[] = []
  for (const { name, labels } of selectors) {
    const seen = exposed.get(name)
    if (!seen) {
      missing.push(`metric ${name}`)
      continue
    }
    for (const label of labels) if (!TARGET_LABELS.has(label) && !seen.has(label)) missing.push(`label ${label} of ${name}`)
  }
  const labelsHere = new Set(selectors.flatMap(({ name }) => [...(exposed.get(name) ?? [])]))
  for (const label of groupingLabels) {
    if (!TARGET_LABELS.has(label) && !labelsHere.has(label)) missing.push(`grouping label ${label}`)
  }
  return missing
}

const queries = [
  ...(await alertQueries()),
  ...(await dashboards()).flatMap(({ file, dashboard }) => dashboardQueries(file, dashboard)),
]

describe('metric names used by deploy/', () => {
  let exposed: Map<string, Set<string>>
  beforeAll(async () => {
    const scrapes = await scrapeComponents()
    exposed = exposedNames([scrapes.api, scrapes.standaloneProxy, scrapes.apiModeProxy])
  }, DATABASE_HOOK_TIMEOUT_MS)

  test('there is something to check: the alert rules and three dashboards', async () => {
    expect(queries.filter((q) => q.source.startsWith('alerts.yml')).length).toBeGreaterThanOrEqual(7)
    expect((await dashboards()).map((d) => d.file)).toEqual(['svc-shadow-api.json', 'svc-shadow-differences.json', 'svc-shadow-proxy.json'])
    for (const query of queries) expect(promqlNames(query.expr).selectors.length).toBeGreaterThan(0)
  })

  test.each(queries.map((q) => [q.source, q] as const))('%s names only what the scrapes expose', (_, query) => {
    expect(missingNames(query, exposed)).toEqual([])
  })

  test('a name the code does not expose is caught', () => {
    const drifted = { source: 'drifted', expr: 'sum by (gate, tier) (rate(svc_responses_compared_totals{result="diff", color="x"}[5m])) / sum(svc_background_comparisons{gate=""})' }
    expect(missingNames(drifted, exposed)).toEqual([
      'metric svc_responses_compared_totals',
      'label gate of svc_background_comparisons',
      'grouping label gate',
      'grouping label tier',
    ])
  })
})
