/**
 * docs/reference/api.md against the OpenAPI document a real API serves
 * (/swagger/json), the request body schemas (src/api/schemas/) and the
 * problem types the code can answer: every operation has a section with
 * its operationId, parameters and statuses, every field of a request or
 * response body is named, and every problem `type` is listed (and no
 * other). An operation, field or problem type added without its
 * documentation fails here.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { APP_ERROR_CODES } from '../../../src/errors/app-error.ts'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'
import { codeSpans, readReference, sectionOf } from '../../support/reference-doc.ts'

const SRC = join(import.meta.dir, '..', '..', '..', 'src')
const SCHEMAS = join(SRC, 'api', 'schemas')

interface Operation {
  readonly operationId?: string
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string }>
  readonly responses?: Readonly<Record<string, { readonly content?: Record<string, { readonly schema?: unknown }> }>>
}

interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>
}

/** Every property name in a JSON Schema, nested ones included. */
function propertyNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) propertyNames(item, into)
  } else if (typeof schema === 'object' && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && typeof value === 'object' && value !== null) {
        for (const name of Object.keys(value)) into.add(name)
      }
      propertyNames(value, into)
    }
  }
  return into
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

/** The problem types the code can answer: the API's error codes, its 500, and every `/errors/...` literal. */
function emittedProblemTypes(): Set<string> {
  const types = new Set([...APP_ERROR_CODES, 'internal'].map((code) => `/errors/${code}`))
  for (const file of sourceFiles(SRC)) {
    for (const match of readFileSync(file, 'utf8').matchAll(/['"`](\/errors\/[a-z0-9-]+)['"`]/g)) types.add(match[1]!)
  }
  return types
}

/** The request body schemas: every `…Body` export of src/api/schemas/, as JSON Schema. */
async function requestBodySchemas(): Promise<Map<string, unknown>> {
  const schemas = new Map<string, unknown>()
  for (const file of readdirSync(SCHEMAS).filter((name) => name.endsWith('.ts'))) {
    const module = (await import(join(SCHEMAS, file))) as Record<string, unknown>
    for (const [name, value] of Object.entries(module)) {
      if (!name.endsWith('Body') || typeof (value as { toJsonSchema?: unknown })?.toJsonSchema !== 'function') continue
      const base = (ctx: { base: unknown }) => ctx.base
      const fallback = { morph: base, default: base, predicate: base, proto: base, domain: base }
      schemas.set(`${file} ${name}`, (value as { toJsonSchema(o: unknown): unknown }).toJsonSchema({ fallback }))
    }
  }
  return schemas
}

describe('docs/reference/api.md, against the served OpenAPI document', () => {
  let api: TestApi
  let openapi: OpenApiDocument
  const doc = readReference('api')
  const spans = codeSpans(doc)

  beforeAll(async () => {
    api = await startTestApi('postgres')
    openapi = (await (await fetch(`${api.url}/swagger/json`)).json()) as OpenApiDocument
  }, DATABASE_HOOK_TIMEOUT_MS)

  afterAll(() => api?.stop())

  test('has a section for every operation, with its operationId, parameters and statuses', () => {
    const wrong: string[] = []
    for (const [path, operations] of Object.entries(openapi.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const name = `${method.toUpperCase()} ${path}`
        const section = sectionOf(doc, (heading) => heading.includes(`\`${name}\``))
        if (section === undefined) {
          wrong.push(`${name}: no section (a heading holding \`${name}\`)`)
          continue
        }
        const here = codeSpans(section)
        if (operation.operationId && !here.has(operation.operationId)) wrong.push(`${name}: operationId ${operation.operationId}`)
        for (const parameter of operation.parameters ?? []) {
          if (!here.has(parameter.name)) wrong.push(`${name}: ${parameter.in} parameter ${parameter.name}`)
        }
        for (const status of Object.keys(operation.responses ?? {})) {
          if (!new RegExp(`\\b${status}\\b`).test(section)) wrong.push(`${name}: status ${status}`)
        }
      }
    }
    expect(wrong).toEqual([])
  })

  test('names every field of every response body', () => {
    const fields = new Set<string>()
    for (const operations of Object.values(openapi.paths)) {
      for (const operation of Object.values(operations)) {
        for (const response of Object.values(operation.responses ?? {})) propertyNames(response.content, fields)
      }
    }
    expect([...fields].filter((field) => !spans.has(field))).toEqual([])
  })

  test('names every field of every request body', async () => {
    const missing: string[] = []
    for (const [source, schema] of await requestBodySchemas()) {
      for (const field of propertyNames(schema)) if (!spans.has(field)) missing.push(`${field} (${source})`)
    }
    expect(missing).toEqual([])
  })
})

describe('docs/reference/api.md, problem types', () => {
  const doc = readReference('api')
  const documented = new Set([...codeSpans(doc)].filter((span) => /^\/errors\/[a-z0-9-]+$/.test(span)))
  const emitted = emittedProblemTypes()

  test('lists every problem type the code can answer', () => {
    expect([...emitted].filter((type) => !documented.has(type))).toEqual([])
  })

  test('lists no problem type the code never answers', () => {
    expect([...documented].filter((type) => !emitted.has(type))).toEqual([])
  })
})
