/**
 * Every operation that takes a body documents it as `application/json`
 * with its schema, so Swagger UI shows the fields and "Try it out" sends
 * JSON. @elysiajs/openapi leaves `requestBody.content` empty for a route
 * whose `parse` is only a function (json-body.ts `jsonBodyParse`).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestApi, type TestApi } from '../../support/api-server.ts'

interface Operation {
  readonly operationId?: string
  readonly requestBody?: { readonly content?: Record<string, { readonly schema?: { readonly properties?: Record<string, unknown> } }> }
}

let t: TestApi
beforeAll(async () => {
  t = await startTestApi('postgres')
})
afterAll(async () => {
  await t?.stop()
})

test('every request body is documented as application/json with the fields of its schema', async () => {
  const doc = (await (await fetch(t.url + '/swagger/json')).json()) as { paths: Record<string, Record<string, Operation>> }
  const withBody = Object.values(doc.paths).flatMap((methods) => Object.values(methods).filter((op) => op.requestBody !== undefined))
  const ids = withBody.map((op) => op.operationId)
  expect(ids).toEqual(expect.arrayContaining(['createGate', 'updateGate', 'createRequest']))
  for (const op of withBody) {
    const content = op.requestBody!.content ?? {}
    expect({ op: op.operationId, types: Object.keys(content) }).toEqual({ op: op.operationId, types: ['application/json'] })
    expect(Object.keys(content['application/json']!.schema?.properties ?? {}).length).toBeGreaterThan(0)
  }
  const createGate = withBody.find((op) => op.operationId === 'createGate')!
  expect(Object.keys(createGate.requestBody!.content!['application/json']!.schema!.properties!).sort()).toEqual(['live_url', 'name', 'shadow_url'])
})
