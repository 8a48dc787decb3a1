/**
 * docs/reference/configuration.md against the code: every variable a
 * component reads has a row in that component's section with the code's
 * default, the document names no variable the code does not read, and
 * every `svc_gate` directive has a row with its option name and default.
 * A variable or directive added without its row fails here.
 */
import { describe, expect, test } from 'bun:test'
import type { Type } from 'arktype'
import { API_VARIABLES, apiConfigSchema } from '../../../src/config/api-config.ts'
import { commonFields } from '../../../src/config/common-config.ts'
import { parseDuration } from '../../../src/config/duration.ts'
import { HUB_VARIABLES, hubConfigSchema } from '../../../src/config/hub-config.ts'
import { KNOWN_VARIABLES } from '../../../src/config/known-variables.ts'
import { MIGRATE_VARIABLES } from '../../../src/config/migrate-config.ts'
import { PROXY_VARIABLES, proxyConfigSchema } from '../../../src/config/proxy-config.ts'
import { variableNames } from '../../../src/config/validate-env.ts'
import { HTTP_CLIENT_DIRECTIVES, optionName, SVC_GATE_DIRECTIVES } from '../../../src/module/directives.ts'
import { validateModuleConfig } from '../../../src/module/module-config.ts'
import { readReference, rowsByName, sectionOf, type TableRow } from '../../support/reference-doc.ts'

const doc = readReference('configuration')
const COMMON = new Set(variableNames(commonFields))

function section(matches: (heading: string) => boolean, what: string): string {
  const text = sectionOf(doc, matches)
  if (text === undefined) throw new Error(`docs/reference/configuration.md has no section for ${what}`)
  return text
}

const shared = rowsByName(section((h) => h.startsWith('Every component'), 'every component'))

interface Component {
  readonly name: string
  readonly variables: readonly string[]
  readonly schema?: Type
  readonly rows: Map<string, TableRow>
}

const COMPONENTS: readonly Component[] = [
  { name: 'api', variables: API_VARIABLES, schema: apiConfigSchema, rows: rowsByName(section((h) => h.includes('bun run api'), 'the API')) },
  { name: 'migrate', variables: MIGRATE_VARIABLES, rows: rowsByName(section((h) => h.includes('bun run migrate'), 'migrate')) },
  { name: 'proxy', variables: PROXY_VARIABLES, schema: proxyConfigSchema, rows: rowsByName(section((h) => h.includes('bun run proxy'), 'the proxy')) },
  { name: 'hub', variables: HUB_VARIABLES, schema: hubConfigSchema, rows: rowsByName(section((h) => h.includes('bun run hub'), 'the hub')) },
]

/** The row of `variable` for a component: its own section, else (a shared variable) "Every component". */
function rowFor(component: Component, variable: string): TableRow | undefined {
  return component.rows.get(variable) ?? (COMMON.has(variable) ? shared.get(variable) : undefined)
}

/** The first word of a Default cell, without code marks: `8090`, `1.0`, `required`. */
function firstWord(cell: string | undefined): string {
  return (cell ?? '').replace(/`/g, '').trim().split(/[\s,;:(]/)[0] ?? ''
}

describe('docs/reference/configuration.md', () => {
  test('lists every variable some component reads', () => {
    const everywhere = rowsByName(doc)
    const missing = [...KNOWN_VARIABLES].filter((name) => !everywhere.has(name))
    expect(missing).toEqual([])
  })

  for (const component of COMPONENTS) {
    test(`has a row for each of the ${component.name}'s variables in its section`, () => {
      const missing = component.variables.filter((name) => rowFor(component, name) === undefined)
      expect(missing).toEqual([])
    })

    if (component.schema !== undefined) {
      test(`gives the ${component.name}'s defaults as the code has them`, () => {
        const props = (component.schema as unknown as { props: Array<{ key: string; default?: unknown; required: boolean }> }).props
        const wrong: string[] = []
        for (const prop of props) {
          const row = rowFor(component, prop.key)
          if (row === undefined) continue // reported by the test above
          const documented = firstWord(row[1])
          if (prop.required && documented !== 'required') wrong.push(`${prop.key}: "${documented}" instead of required`)
          if (typeof prop.default === 'string' && prop.default !== '' && documented !== prop.default) {
            wrong.push(`${prop.key}: "${documented}" instead of ${prop.default}`)
          }
        }
        expect(wrong).toEqual([])
      })
    }
  }

  test('names no variable that no component reads', () => {
    const named = new Set<string>()
    // A name followed by `*` stands for a family (SVC_APP_HTTP_CLIENT_*), not a variable.
    for (const match of doc.matchAll(/\b(?:SVC_APP|VITE)_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_]*\*)/g)) named.add(match[0])
    const unknown = [...named].filter((name) => !KNOWN_VARIABLES.has(name))
    expect(unknown).toEqual([])
  })
})

describe('docs/reference/configuration.md, the svc_gate module', () => {
  const module = section((h) => h.startsWith('Module'), 'the module')
  const rows = rowsByName(module)
  const directives = [...SVC_GATE_DIRECTIVES, ...HTTP_CLIENT_DIRECTIVES]

  test('has a row for every directive, and none for a directive the module does not read', () => {
    const documented = [...rows.keys()].filter((name) => /^[a-z][a-z_]*$/.test(name))
    expect(directives.filter((d) => !rows.has(d))).toEqual([])
    expect(documented.filter((d) => !(directives as readonly string[]).includes(d))).toEqual([])
  })

  test("gives each directive's object-form option name", () => {
    const wrong = directives.filter((d) => !(rows.get(d)?.[1] ?? '').includes(`\`${optionName(d)}\``))
    expect(wrong).toEqual([])
  })

  test('gives the defaults the module applies', () => {
    const resolved = validateModuleConfig({ live: 'http://127.0.0.1:1', shadow: 'http://127.0.0.1:2' }) as unknown as Record<string, unknown>
    const defaults = new Map<string, unknown>()
    for (const d of SVC_GATE_DIRECTIVES) if (d !== 'http_client') defaults.set(d, resolved[optionName(d)] ?? resolved[`${optionName(d)}Ms`])
    const httpClient = resolved['httpClient'] as Record<string, unknown>
    for (const d of HTTP_CLIENT_DIRECTIVES) defaults.set(d, httpClient[optionName(d)] ?? httpClient[`${optionName(d)}Ms`])
    const wrong: string[] = []
    for (const [directive, value] of defaults) {
      const row = rows.get(directive)
      if (row === undefined) continue // reported above
      const documented = firstWord(row[2])
      const ok =
        directive === 'live' || directive === 'shadow'
          ? documented === 'required'
          : typeof value === 'number'
            ? documented !== '' && (Number(documented) === value || parseDuration(documented) === value)
            : typeof value === 'boolean'
              ? documented === (value ? 'on' : 'off')
              : Array.isArray(value) || value === ''
                ? documented === 'none'
                : false
      if (!ok) wrong.push(`${directive}: "${documented}" for ${JSON.stringify(value)}`)
    }
    expect(wrong).toEqual([])
  })
})
