/**
 * The dashboards of deploy/grafana import as they are, through Grafana's
 * "Import dashboard" or file provisioning: no `__inputs` to fill in, one
 * data source variable that every query goes through, unique ids, panels
 * on the 24-column grid without overlap, only variables that exist
 * (docs/metrics.md "Dashboards").
 */
import { describe, expect, test } from 'bun:test'
import { dashboards } from '../../support/deployed-queries.ts'

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' }
/** Grafana's own panel types used here. */
const CORE_PANELS = new Set(['row', 'timeseries', 'stat', 'state-timeline', 'table'])
/** Variables Grafana defines itself. */
const BUILT_IN_VARIABLES = new Set(['__rate_interval', '__range', '__interval'])

interface Panel {
  readonly id: number
  readonly type: string
  readonly title: string
  readonly datasource?: unknown
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number }
  readonly targets?: readonly { readonly refId: string; readonly expr: string; readonly legendFormat?: string; readonly datasource?: unknown }[]
}

interface Variable {
  readonly name: string
  readonly type: string
  readonly query: unknown
  readonly datasource?: unknown
}

const all = await dashboards()

describe('Grafana dashboards', () => {
  test('three, each with its own uid and title', () => {
    expect(all).toHaveLength(3)
    const uids = all.map(({ dashboard }) => dashboard.uid)
    expect(new Set(uids).size).toBe(3)
    for (const uid of uids) expect(uid).toMatch(/^[a-z0-9-]{1,40}$/)
    expect(new Set(all.map(({ dashboard }) => dashboard.title)).size).toBe(3)
  })

  describe.each(all.map(({ file, dashboard }) => [file, dashboard as unknown as Record<string, unknown>] as const))('%s', (_, dashboard) => {
    const panels = dashboard.panels as readonly Panel[]
    const variables = (dashboard.templating as { list: readonly Variable[] }).list

    test('the fields of an exported dashboard, without an id or inputs to fill in', () => {
      expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36)
      expect(typeof dashboard.title).toBe('string')
      expect(dashboard.id).toBeUndefined()
      expect(dashboard.__inputs).toBeUndefined()
      expect(JSON.stringify(dashboard)).not.toContain('${DS_')
      expect(dashboard.time).toEqual({ from: expect.any(String), to: 'now' })
    })

    test('every query goes through the data source variable', () => {
      expect(variables[0]).toMatchObject({ name: 'datasource', type: 'datasource', query: 'prometheus' })
      for (const variable of variables.filter((v) => v.type === 'query')) expect(variable.datasource).toEqual(DATASOURCE)
      for (const panel of panels.filter((p) => p.type !== 'row')) {
        expect(panel.datasource).toEqual(DATASOURCE)
        expect(panel.targets?.length).toBeGreaterThan(0)
        for (const target of panel.targets ?? []) expect(target.datasource).toEqual(DATASOURCE)
      }
    })

    test('panels: core types, unique ids and refIds, on the grid without overlap', () => {
      expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length)
      for (const panel of panels) {
        expect(CORE_PANELS.has(panel.type)).toBe(true)
        const { x, y, w, h } = panel.gridPos
        for (const n of [x, y, w, h]) expect(Number.isInteger(n)).toBe(true)
        expect(x >= 0 && w > 0 && x + w <= 24 && h > 0).toBe(true)
        const refIds = (panel.targets ?? []).map((t) => t.refId)
        expect(new Set(refIds).size).toBe(refIds.length)
      }
      for (const [i, a] of panels.entries()) {
        for (const b of panels.slice(i + 1)) {
          const apart =
            a.gridPos.x + a.gridPos.w <= b.gridPos.x ||
            b.gridPos.x + b.gridPos.w <= a.gridPos.x ||
            a.gridPos.y + a.gridPos.h <= b.gridPos.y ||
            b.gridPos.y + b.gridPos.h <= a.gridPos.y
          expect(apart ? '' : `"${a.title}" overlaps "${b.title}"`).toBe('')
        }
      }
    })

    test('only variables that exist', () => {
      const defined = new Set([...variables.map((v) => v.name), ...BUILT_IN_VARIABLES])
      const texts = [
        ...panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
        ...variables.map((v) => (typeof v.query === 'string' ? v.query : '')),
      ]
      const used = texts.flatMap((text) => [...text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!))
      expect(used.length).toBeGreaterThan(0)
      expect(used.filter((name) => !defined.has(name))).toEqual([])
    })
  })
})
