import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { startTestApi, TEST_API_KEY, type TestApi } from '../../support/api-server.ts'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

/**
 * SVC_APP_ALLOWED_HOSTS against DNS rebinding: a page on another name that
 * now resolves to the API still sends its own name as Host.
 */

interface RawResponse {
  readonly status: number
  readonly head: string
  readonly body: string
}

/** One request with the Host header exactly as written (fetch would set its own). */
function rawRequest(url: string, method: string, path: string, host: string, options: { body?: string; key?: boolean } = {}): Promise<RawResponse> {
  const { port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      const auth = options.key === false ? '' : `Authorization: Bearer ${TEST_API_KEY}\r\n`
      const body = options.body === undefined ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(options.body)}\r\n`
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n${auth}${body}Connection: close\r\n\r\n${options.body ?? ''}`)
    })
    let data = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => (data += chunk))
    socket.on('end', () => {
      const split = data.indexOf('\r\n\r\n')
      resolve({ status: Number(data.split(' ')[1]), head: data.slice(0, split), body: data.slice(split + 4) })
    })
    socket.on('error', reject)
  })
}

describe('SVC_APP_ALLOWED_HOSTS on the API', () => {
  let t: TestApi
  beforeAll(async () => {
    t = await startTestApi('pglite', { SVC_APP_ALLOWED_HOSTS: '127.0.0.1, localhost, *.svc.example', SVC_APP_RATE_LIMIT: '100000' })
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t?.stop()
  })

  test.each(['/gates', '/config', '/stats', '/swagger', '/swagger/json', '/nowhere'])(
    '%s under another Host is a 421 problem, before authentication and routing',
    async (path) => {
      for (const host of ['rebound.evil.test', 'rebound.evil.test:8090', '127.0.0.2', '[::1]:8090', 'svc.example', 'localhost.evil.test', '']) {
        const res = await rawRequest(t.url, 'GET', path, host)
        expect(res.status).toBe(421)
        expect(res.head.toLowerCase()).toContain('content-type: application/problem+json')
        expect(res.head).toContain('X-Frame-Options: DENY')
        expect(JSON.parse(res.body)).toEqual({
          type: '/errors/misdirected-request',
          title: 'Misdirected request',
          status: 421,
          detail: 'this server does not answer to the host named in the request (SVC_APP_ALLOWED_HOSTS)',
          instance: path,
        })
      }
    },
  )

  test('a POST under another Host is refused without creating anything', async () => {
    const body = JSON.stringify({ name: 'rebound', live_url: 'http://a.test', shadow_url: 'http://b.test' })
    const res = await rawRequest(t.url, 'POST', '/gates', 'rebound.evil.test', { body })
    expect(res.status).toBe(421)
    const list = (await (await t.call('GET', '/gates')).json()) as { data: unknown[] }
    expect(list.data).toEqual([])
  })

  test('the hosts listed are answered: any port, any case, subdomains of a wildcard', async () => {
    for (const host of ['127.0.0.1', `127.0.0.1:${new URL(t.url).port}`, 'LOCALHOST:8090', 'api.svc.example', 'a.b.svc.example:443']) {
      expect((await rawRequest(t.url, 'GET', '/gates', host)).status).toBe(200)
    }
  })

  test.each(['/health/live', '/health/ready', '/metrics'])('%s is answered under any Host: orchestrators probe by IP', async (path) => {
    for (const host of ['10.1.2.3:8090', 'rebound.evil.test', '']) {
      expect((await rawRequest(t.url, 'GET', path, host, { key: false })).status).toBe(200)
    }
  })

  test('the 421 is counted under the route it asked for', async () => {
    await rawRequest(t.url, 'GET', '/gates', 'rebound.evil.test')
    const metrics = await (await fetch(`${t.url}/metrics`)).text()
    expect(metrics).toMatch(/http_server_request_duration_seconds_count\{[^}]*http_response_status_code="421",http_route="\/gates"\} [1-9]/)
  })

  test('the OpenAPI description lists the 421 on every operation', async () => {
    type Operation = { responses?: Record<string, { description: string; content?: Record<string, unknown> }> }
    const doc = (await (await fetch(`${t.url}/swagger/json`)).json()) as { paths: Record<string, Record<string, Operation>> }
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods))
    expect(operations.length).toBeGreaterThanOrEqual(10)
    for (const operation of operations) {
      const misdirected = operation.responses?.['421']
      expect(misdirected?.description).toContain('SVC_APP_ALLOWED_HOSTS')
      expect(Object.keys(misdirected?.content ?? {})).toEqual(['application/problem+json'])
    }
  })
})

describe('SVC_APP_ALLOWED_HOSTS unset', () => {
  let t: TestApi
  beforeAll(async () => {
    t = await startTestApi('pglite')
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await t?.stop()
  })

  test('any Host is answered, and the OpenAPI description has no 421', async () => {
    for (const host of ['rebound.evil.test', '127.0.0.2:1']) {
      expect((await rawRequest(t.url, 'GET', '/gates', host)).status).toBe(200)
    }
    const doc = await (await fetch(`${t.url}/swagger/json`)).text()
    expect(doc).not.toContain('"421"')
  })

  test('an empty Host still reaches the public paths without a key', async () => {
    const res = await rawRequest(t.url, 'GET', '/health/live', '', { key: false })
    expect(res.status).toBe(200)
  })
})
