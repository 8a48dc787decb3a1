/**
 * The PromQL shipped in deploy/: the alert rules' expressions and every
 * expression of the Grafana dashboards (panel targets and variable queries).
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { grafanaQueryExpression } from './promql-names.ts'

export const DEPLOY_DIR = join(import.meta.dir, '../../deploy')
export const ALERTS_FILE = join(DEPLOY_DIR, 'prometheus/alerts.yml')
export const ALERTS_TEST_FILE = join(DEPLOY_DIR, 'prometheus/alerts.test.yml')
export const GRAFANA_DIR = join(DEPLOY_DIR, 'grafana')

export interface DeployedQuery {
  /** Where it is: `alerts.yml SvcApiSlow`, `svc-shadow-api.json "p95 by route" B`. */
  readonly source: string
  readonly expr: string
}

interface AlertRules {
  readonly groups: readonly { readonly rules: readonly { readonly alert: string; readonly expr: string }[] }[]
}

/** A dashboard as far as these tests read it. */
export interface Dashboard {
  readonly uid: string
  readonly title: string
  readonly panels: readonly {
    readonly id: number
    readonly type: string
    readonly title: string
    readonly targets?: readonly { readonly refId: string; readonly expr: string }[]
  }[]
  readonly templating: { readonly list: readonly { readonly name: string; readonly type: string; readonly query: unknown }[] }
}

export async function alertQueries(): Promise<DeployedQuery[]> {
  const rules = Bun.YAML.parse(await Bun.file(ALERTS_FILE).text()) as AlertRules
  return rules.groups.flatMap((group) => group.rules.map((rule) => ({ source: `alerts.yml ${rule.alert}`, expr: rule.expr })))
}

/** The dashboards of deploy/grafana, by file name. */
export async function dashboards(): Promise<{ file: string; dashboard: Dashboard }[]> {
  const files = readdirSync(GRAFANA_DIR).filter((file) => file.endsWith('.json')).sort()
  return Promise.all(files.map(async (file) => ({ file, dashboard: (await Bun.file(join(GRAFANA_DIR, file)).json()) as Dashboard })))
}

export function dashboardQueries(file: string, dashboard: Dashboard): DeployedQuery[] {
  const targets = dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ source: `${file} "${panel.title}" ${target.refId}`, expr: target.expr })),
  )
  const variables = dashboard.templating.list
    .filter((variable) => variable.type === 'query' && typeof variable.query === 'string')
    .map((variable) => ({ source: `${file} variable ${variable.name}`, expr: grafanaQueryExpression(variable.query as string) }))
  return [...targets, ...variables]
}

/**
 * The expression as Prometheus would get it from Grafana: its variables
 * replaced by values of the right kind (ranges by durations, the rest by
 * a regex matching anything).
 */
export function withGrafanaVariables(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '5m')
    .replaceAll('$__range', '6h')
    .replaceAll('$__interval', '1m')
    .replace(/\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*/g, '.*')
}
