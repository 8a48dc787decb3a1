/**
 * Prometheus's own checks on what deploy/ ships and on what the components
 * expose: `promtool check rules`, `promtool test rules`, every dashboard
 * expression parsed as PromQL, and `promtool check metrics` on the real
 * /metrics of the API and of both kinds of proxy. promtool comes with
 * Debian's `prometheus` package; .ci/run installs it when it is missing.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import {
  ALERTS_FILE,
  ALERTS_TEST_FILE,
  dashboardQueries,
  dashboards,
  withGrafanaVariables,
} from '../../support/deployed-queries.ts'
import { scrapeComponents, type ComponentScrapes } from './component-scrapes.ts'

const PROMTOOL = '/usr/bin/promtool'

/**
 * The lint lines `promtool check metrics` may print, by component, each
 * justified in docs/metrics.md "Lint"; any other line fails the test.
 */
const ACCEPTED_LINT: Record<keyof ComponentScrapes, readonly string[]> = {
  api: ['db_client_connection_count non-histogram and non-summary metrics should not have "_count" suffix'],
  standaloneProxy: [],
  apiModeProxy: [],
}

function promtool(args: string[], stdin?: string): { exitCode: number; output: string } {
  if (!existsSync(PROMTOOL)) {
    throw new Error(`${PROMTOOL} not found: install Debian's prometheus package (apt-get install -y prometheus); .ci/run does so when it is missing`)
  }
  const run = Bun.spawnSync({ cmd: [PROMTOOL, ...args], stdin: stdin === undefined ? 'ignore' : Buffer.from(stdin), stdout: 'pipe', stderr: 'pipe' })
  return { exitCode: run.exitCode, output: run.stdout.toString() + run.stderr.toString() }
}

/** Runs `promtool check rules` on the expressions, as recording rules of a file of their own. */
function checkExpressions(exprs: readonly string[]): { exitCode: number; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-promql-'))
  try {
    const rules = exprs.map((expr, i) => ({ record: `dashboard:query_${i}`, expr: withGrafanaVariables(expr) }))
    const file = join(dir, 'dashboards.rules.json')
    // JSON is YAML, and promtool reads rule files as YAML.
    writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboards', rules }] }))
    return promtool(['check', 'rules', file])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('promtool on deploy/prometheus', () => {
  test('check rules: the alert rules are valid', () => {
    const { exitCode, output } = promtool(['check', 'rules', ALERTS_FILE])
    expect(output).toContain('SUCCESS')
    expect(exitCode).toBe(0)
  })

  test('test rules: every rule fires, and only, where alerts.test.yml says', () => {
    const { exitCode, output } = promtool(['test', 'rules', ALERTS_TEST_FILE])
    expect(output).toContain('SUCCESS')
    expect(exitCode).toBe(0)
  })
})

describe('promtool on deploy/grafana', () => {
  test('every dashboard expression is valid PromQL once Grafana has filled in its variables', async () => {
    const exprs = (await dashboards()).flatMap(({ file, dashboard }) => dashboardQueries(file, dashboard)).map((q) => q.expr)
    expect(exprs.length).toBeGreaterThan(30)
    const { exitCode, output } = checkExpressions(exprs)
    expect(output).toContain('SUCCESS')
    expect(exitCode).toBe(0)
  })

  test('an invalid expression is caught', () => {
    expect(checkExpressions(['sum by (gate) (rate(svc_responses_compared_total[$__rate_interval])']).exitCode).not.toBe(0)
  })
})

describe('promtool check metrics on each component\'s /metrics', () => {
  let scrapes: ComponentScrapes
  beforeAll(async () => {
    scrapes = await scrapeComponents()
  }, DATABASE_HOOK_TIMEOUT_MS)

  test.each(Object.keys(ACCEPTED_LINT) as (keyof ComponentScrapes)[])('%s: only the documented lint lines', (component) => {
    const { exitCode, output } = promtool(['check', 'metrics'], scrapes[component])
    const lines = output.split('\n').filter((line) => line.trim() !== '')
    expect(lines).toEqual([...ACCEPTED_LINT[component]])
    // 3 is promtool's "lint problems"; 1 would be text it cannot parse.
    expect(exitCode).toBe(ACCEPTED_LINT[component].length === 0 ? 0 : 3)
  })
})
