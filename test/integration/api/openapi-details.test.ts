/**
 * What Swagger UI shows a reader beyond the schemas: every parameter
 * described, query parameters with their type and bounds, a request body
 * example per operation that takes one (each accepted by the real API, in
 * the order a reader would try them), an RFC 7807 example per error
 * response, and the headers each response carries.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { APP_ERROR_CODES } from '../../../src/errors/app-error.ts'
import { startTestApi, type TestApi } from '../../support/api-server.ts'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

interface Parameter {
  readonly name: string
  readonly in: string
  readonly description?: string
  readonly schema?: Record<string, unknown>
}
interface Media {
  readonly schema?: { readonly properties?: Record<string, { readonly enum?: string[] }> }
  readonly example?: Record<string, unknown>
}
interface Operation {
  readonly operationId: string
  readonly parameters?: Parameter[]
  readonly requestBody?: { readonly content: Record<string, Media> }
  readonly responses: Record<string, { readonly content?: Record<string, Media>; readonly headers?: Record<string, unknown> }>
}

const PROBLEM_TYPES = [...APP_ERROR_CODES, 'internal'].map((code) => `/errors/${code}`)

describe('the OpenAPI description, beyond the schemas', () => {
  let t: TestApi
  let operations: Map<string, { path: string; method: string; operation: Operation }>

  beforeAll(async () => {
    t = await startTestApi('pglite')
    const doc = (await (await fetch(`${t.url}/swagger/json`)).json()) as { paths: Record<string, Record<string, Operation>> }
    operations = new Map(
      Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => [operation.operationId, { path, method, operation }] as const),
      ),
    )
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t?.stop())

  test('every parameter says what it is; numbers, flags and times have their type and bounds', () => {
    for (const { operation } of operations.values()) {
      for (const parameter of operation.parameters ?? []) {
        expect({ op: operation.operationId, name: parameter.name, described: (parameter.description ?? '').length > 0 }).toEqual({
          op: operation.operationId,
          name: parameter.name,
          described: true,
        })
        // No free text box where the API wants a number, a flag or a time.
        if (parameter.in === 'query' && parameter.schema?.type === 'string') {
          expect({ op: operation.operationId, name: parameter.name }).toMatchObject({
            name: expect.stringMatching(/^(name|live_url|shadow_url|path|template|signature|from|to)$/),
          })
        }
      }
    }
    const limit = operations.get('listRequests')!.operation.parameters!.find((p) => p.name === 'limit')!
    expect(limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
    const from = operations.get('getVerdict')!.operation.parameters!.find((p) => p.name === 'from')!
    expect(from.schema).toEqual({ type: 'string', format: 'date-time' })
    expect(from.description).toContain('one hour')
    const exportLimit = operations.get('exportRequests')!.operation.parameters!.find((p) => p.name === 'limit')!
    expect(exportLimit.schema).toEqual({ type: 'integer', minimum: 1 })
  })

  test("every request body has an example, and the real API takes each as it stands", async () => {
    const withBody = [...operations.values()].filter(({ operation }) => operation.requestBody !== undefined)
    expect(withBody.map(({ operation }) => operation.operationId).sort()).toEqual(['createGate', 'createRequest', 'previewDiffConfig', 'startRediff', 'updateGate'])
    const example = (id: string) => operations.get(id)!.operation.requestBody!.content['application/json']!.example!
    const send = async (id: string, gateId = '') => {
      const { path, method } = operations.get(id)!
      const res = await t.call(method.toUpperCase(), path.replace('{gate_id}', gateId), example(id))
      const problem = res.status < 300 ? '' : await res.clone().text()
      expect({ id, status: res.status < 300 ? 'success' : res.status, problem }).toEqual({ id, status: 'success', problem: '' })
      return (await res.json()) as { data: { id: string } }
    }
    const gate = (await send('createGate')).data
    for (const id of ['updateGate', 'createRequest', 'previewDiffConfig', 'startRediff']) await send(id, gate.id)
  })

  test('every error response shows a problem of its own status, a type from the list, and the headers it carries', () => {
    for (const { operation } of operations.values()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect({ op: operation.operationId, status, requestId: response.headers?.['X-Request-ID'] !== undefined }).toEqual({
          op: operation.operationId,
          status,
          requestId: true,
        })
        if (Number(status) < 400) continue
        const problem = response.content?.['application/problem+json']
        const example = problem?.example ?? {}
        expect({ op: operation.operationId, status: example.status }).toEqual({ op: operation.operationId, status: Number(status) })
        expect(PROBLEM_TYPES).toContain(String(example.type))
        expect(problem!.schema!.properties!.type!.enum).toEqual(PROBLEM_TYPES)
        if (status === '429' || status === '503') expect(response.headers?.['Retry-After']).toBeDefined()
        if (status === '401') expect(response.headers?.['WWW-Authenticate']).toBeDefined()
      }
    }
    // A 400 is about the body where there is one, about a parameter where there is none.
    expect(operations.get('createGate')!.operation.responses['400']!.content!['application/problem+json']!.example!.type).toBe('/errors/invalid-request-body')
    expect(operations.get('listGates')!.operation.responses['400']!.content!['application/problem+json']!.example!.type).toBe('/errors/invalid-parameter')
  })
})
