import { describe, expect, test } from 'bun:test'
import { ApiClient } from '../../../hub/src/lib/api-client.ts'
import { ApiError } from '../../../hub/src/lib/api-error.ts'
import { DEFAULT_GATE_QUERY, DEFAULT_REQUEST_QUERY } from '../../../hub/src/lib/query-string.ts'

interface Call {
  url: string
  init: RequestInit
}

function client(respond: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = []
  const fetch = (async (url: string, init: RequestInit) => {
    const call = { url, init }
    calls.push(call)
    return respond(call)
  }) as unknown as typeof globalThis.fetch
  return { api: new ApiClient({ baseUrl: 'http://api.test/', apiKey: 'secret-key-0123456789', fetch }), calls }
}

const problem = (status: number, detail?: string) =>
  new Response(JSON.stringify({ type: '/errors/x', title: 'Some Title', status, detail }), {
    status,
    headers: { 'Content-Type': 'application/problem+json' },
  })

describe('ApiClient', () => {
  test('sends the bearer key and unwraps {data}', async () => {
    const { api, calls } = client(() => Response.json({ data: { retention: '720h' } }))
    expect(await api.getConfig()).toEqual({ retention: '720h' })
    expect(calls[0]?.url).toBe('http://api.test/config')
    expect((calls[0]?.init.headers as Record<string, string>).Authorization).toBe('Bearer secret-key-0123456789')
  })

  test('lists carry pagination and the filters as the API query', async () => {
    const pagination = { limit: 50, offset: 0, total: 1, has_more: false }
    const { api, calls } = client(() => Response.json({ data: [{ id: 'r' }], pagination }))
    const page = await api.listRequests('g 1', { ...DEFAULT_REQUEST_QUERY, has_diff: 'true', method: ['GET'] })
    expect(page).toEqual({ items: [{ id: 'r' }] as never, pagination })
    expect(calls[0]?.url).toBe('http://api.test/gates/g%201/requests?method=GET&has_diff=true')
    await api.listGates({ ...DEFAULT_GATE_QUERY, name: 'chk' })
    expect(calls[1]?.url).toBe('http://api.test/gates?name=chk')
  })

  test('the insight reads send the window, the endpoint, the kind, sort and paging', async () => {
    const pagination = { limit: 10, offset: 0, total: 0, has_more: false }
    const { api, calls } = client(() => Response.json({ data: [], pagination }))
    const from = '2025-06-01T00:00:00.000Z'
    await api.listEndpoints('g', { from, sort: 'diff_rate', order: 'desc', offset: 25, limit: 25 })
    expect(calls[0]?.url).toBe('http://api.test/gates/g/endpoints?from=2025-06-01T00%3A00%3A00.000Z&sort=diff_rate&order=desc&limit=25&offset=25')
    await api.listSignatures('g', { from, sort: 'last_seen', order: 'asc', offset: 0, limit: 10, kind: 'error' })
    expect(calls[1]?.url).toBe('http://api.test/gates/g/signatures?from=2025-06-01T00%3A00%3A00.000Z&kind=error&sort=last_seen&order=asc&limit=10&offset=0')
    await api.listFields('g', { from, sort: 'path', order: 'asc', offset: 0, limit: 25, method: 'GET', template: '/v2/products/{id}' })
    expect(calls[2]?.url).toBe(
      'http://api.test/gates/g/fields?from=2025-06-01T00%3A00%3A00.000Z&method=GET&template=%2Fv2%2Fproducts%2F%7Bid%7D&sort=path&order=asc&limit=25&offset=0',
    )
  })

  test('writes send JSON; delete accepts 204', async () => {
    const { api, calls } = client((c) => (c.init.method === 'DELETE' ? new Response(null, { status: 204 }) : Response.json({ data: { id: 'g' } }, { status: 201 })))
    await api.createGate({ name: 'n', live_url: 'http://l', shadow_url: 'http://s' })
    expect(calls[0]?.init.method).toBe('POST')
    expect(JSON.parse(String(calls[0]?.init.body))).toEqual({ name: 'n', live_url: 'http://l', shadow_url: 'http://s' })
    expect((calls[0]?.init.headers as Record<string, string>)['Content-Type']).toBe('application/json')
    await api.updateGate('g', { retention: null })
    expect(JSON.parse(String(calls[1]?.init.body))).toEqual({ retention: null })
    await expect(api.deleteGate('g')).resolves.toBeUndefined()
  })

  test('an HTTP error carries status and the Problem detail', async () => {
    const { api } = client(() => problem(409, 'a gate named "x" already exists'))
    const error = await api.createGate({ name: 'x', live_url: 'http://l', shadow_url: 'http://s' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).status).toBe(409)
    expect((error as ApiError).detail).toBe('a gate named "x" already exists')
    expect((error as ApiError).message).toBe('Some Title: a gate named "x" already exists')
  })

  test('a 401 without a Problem body is still an http failure', async () => {
    const { api } = client(() => new Response('nope', { status: 401 }))
    const error = (await api.getStats().catch((e: unknown) => e)) as ApiError
    expect(error.failure).toEqual({ kind: 'http', status: 401, problem: undefined })
  })

  test('an unreachable API is a network failure', async () => {
    const { api } = client(() => {
      throw new TypeError('Failed to fetch')
    })
    const error = (await api.getStats().catch((e: unknown) => e)) as ApiError
    expect(error.failure.kind).toBe('network')
    expect(error.status).toBe(0)
  })

  test('a 200 without {data} is an invalid response', async () => {
    const { api } = client(() => Response.json({ retention: '720h' }))
    const error = (await api.getConfig().catch((e: unknown) => e)) as ApiError
    expect(error.failure.kind).toBe('invalid-response')
  })

  test('an abort is passed through untouched, not wrapped', async () => {
    const { api } = client(
      (c) =>
        new Promise<Response>((_, reject) => {
          c.init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))
        }),
    )
    const abort = new AbortController()
    const pending = api.getStats(abort.signal).catch((e: unknown) => e)
    abort.abort()
    const error = await pending
    expect(error).toBeInstanceOf(DOMException)
    expect((error as DOMException).name).toBe('AbortError')
  })
})
