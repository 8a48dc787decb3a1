import { describe, expect, test } from 'bun:test'
import { ApiClient } from '../../../hub/src/lib/api-client.ts'
import { loadSignatureFacts } from '../../../hub/src/lib/signature-lookup.ts'

const ID = '024f4f9242c2d465'
const detail = { signature_id: ID, created_at: '2025-06-01T12:00:30.000Z', method: 'GET', template: '/v2/products/{id}' }
const page = (data: unknown[], total: number) => Response.json({ data, pagination: { limit: 1, offset: 0, total, has_more: total > data.length } })

function api(respond: (url: URL) => Response) {
  const urls: URL[] = []
  const fetch = (async (url: string) => {
    urls.push(new URL(url))
    return respond(new URL(url))
  }) as unknown as typeof globalThis.fetch
  return { client: new ApiClient({ baseUrl: 'http://api.test', apiKey: 'secret-key-0123456789', fetch }), urls }
}

describe('loadSignatureFacts', () => {
  test('counts the others through listRequests and finds the signature among its endpoint’s around the capture', async () => {
    const { client, urls } = api((url) =>
      url.pathname.endsWith('/requests') ? page([{ id: 'r' }], 5) : page([{ id: 'ffffffffffffffff' }, { id: ID, kind: 'diff' }], 2),
    )
    const facts = await loadSignatureFacts(client, 'g', detail, new AbortController().signal)
    expect(facts?.others).toBe(4)
    expect(facts?.signature?.id).toBe(ID)
    const listed = urls.find((u) => u.pathname.endsWith('/requests'))!
    expect(Object.fromEntries(listed.searchParams)).toEqual({ signature: ID, limit: '1' })
    const looked = urls.find((u) => u.pathname.endsWith('/signatures'))!
    expect(Object.fromEntries(looked.searchParams)).toMatchObject({
      from: '2025-06-01T11:59:30.000Z',
      to: '2025-06-01T12:01:30.000Z',
      method: 'GET',
      template: '/v2/products/{id}',
    })
  })

  test('a signature not found, or a lookup that fails, costs only the summary', async () => {
    const missing = api((url) => (url.pathname.endsWith('/requests') ? page([], 1) : page([], 0)))
    expect(await loadSignatureFacts(missing.client, 'g', detail, new AbortController().signal)).toEqual({ signature: undefined, others: 0 })
    const failing = api((url) => (url.pathname.endsWith('/requests') ? page([], 3) : new Response('{}', { status: 500 })))
    expect(await loadSignatureFacts(failing.client, 'g', detail, new AbortController().signal)).toEqual({ signature: undefined, others: 2 })
  })

  test('a failed count is an error; no signature, no facts; no template, no lookup', async () => {
    const down = api(() => new Response('{}', { status: 503 }))
    await expect(loadSignatureFacts(down.client, 'g', detail, new AbortController().signal)).rejects.toThrow()
    expect(await loadSignatureFacts(down.client, 'g', { ...detail, signature_id: null }, new AbortController().signal)).toBeUndefined()
    const old = api(() => page([], 2))
    await loadSignatureFacts(old.client, 'g', { ...detail, template: null }, new AbortController().signal)
    expect(old.urls.map((u) => u.pathname)).toEqual(['/gates/g/requests'])
  })
})
