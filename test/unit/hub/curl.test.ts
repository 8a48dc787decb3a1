import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { curlCommand, replayUrl, shellQuote } from '../../../hub/src/lib/curl.ts'
import type { ReplayRequest } from '../../../hub/src/lib/curl.ts'

const b64 = (x: string | Uint8Array) => Buffer.from(x).toString('base64')

describe('shellQuote', () => {
  test.each([
    ['plain', 'plain'],
    ['/api/v1?x=1', "'/api/v1?x=1'"],
    ['', "''"],
    ["it's", "'it'\\''s'"],
    ['$HOME `id` "x"', "'$HOME `id` \"x\"'"],
  ])('%p → %p', (word, quoted) => {
    expect(shellQuote(word)).toBe(quoted)
  })
})

describe('replayUrl', () => {
  test.each([
    ['http://live:8080', '/a', undefined, 'http://live:8080/a'],
    ['http://live:8080/', '/a', 'x=1', 'http://live:8080/a?x=1'],
    ['https://h/prefix', '/a/b', '', 'https://h/prefix/a/b'],
    ['http://h', 'no-slash', undefined, 'http://h/no-slash'],
    ['http://h', '/café menu', 'q=a b&r=%2F', 'http://h/caf%C3%A9%20menu?q=a%20b&r=%2F'],
    ['http://h', '/a[1]{x}', undefined, 'http://h/a[1]%7Bx%7D'],
  ])('%p + %p + %p', (base, path, query, url) => {
    expect(replayUrl(base, path, query)).toBe(url)
  })
})

describe('curlCommand', () => {
  const req: ReplayRequest = {
    method: 'POST',
    path: '/api/cart/checkout',
    raw_query: 'dry_run=1&note=a+b',
    headers: {
      'Content-Type': ['application/json'],
      Host: ['shop.example'],
      'Content-Length': ['17'],
      Connection: ['keep-alive'],
      'X-Svc-Mode': ['shadow'],
      Authorization: ['[REDACTED]'],
      Accept: ['application/json', 'text/plain'],
    },
    body: b64(`{"note":"it's"}`),
  }

  test('method, URL, headers (minus hop-by-hop and Host) and a text body', () => {
    expect(curlCommand(req, 'http://live:8080')).toBe(
      "curl -sS -i -g --path-as-is -X POST 'http://live:8080/api/cart/checkout?dry_run=1&note=a+b'" +
        " -H 'Accept: application/json' -H 'Accept: text/plain'" +
        " -H 'Authorization: [REDACTED]' -H 'Content-Type: application/json'" +
        ` --data-raw '{"note":"it'\\''s"}'`,
    )
  })

  test('GET without a body has no -X and no data', () => {
    expect(curlCommand({ method: 'GET', path: '/x', headers: {}, body: '' }, 'http://h')).toBe('curl -sS -i -g --path-as-is http://h/x')
  })

  test('HEAD uses --head', () => {
    expect(curlCommand({ method: 'HEAD', path: '/x', headers: {}, body: '' }, 'http://h')).toBe('curl -sS -i -g --path-as-is --head http://h/x')
  })

  test('a binary body is piped in from base64', () => {
    const cmd = curlCommand({ method: 'PUT', path: '/blob', headers: {}, body: b64(new Uint8Array([0, 1, 2, 255])) }, 'http://h')
    expect(cmd).toBe("printf %s AAEC/w== | base64 -d | curl -sS -i -g --path-as-is -X PUT http://h/blob --data-binary @-")
  })
})

// The command really replays the request: run it through sh and curl
// against a local server and compare what arrives.
describe.skipIf(!Bun.which('curl') || !Bun.which('sh'))('replaying with curl', () => {
  let server: ReturnType<typeof Bun.serve>
  let last: { method: string; url: string; headers: Record<string, string>; body: Uint8Array } | undefined

  beforeAll(() => {
    server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(r) {
        last = {
          method: r.method,
          url: new URL(r.url).pathname + new URL(r.url).search,
          headers: Object.fromEntries(r.headers),
          body: new Uint8Array(await r.arrayBuffer()),
        }
        return new Response('ok')
      },
    })
  })
  afterAll(() => server.stop(true))

  const run = async (r: ReplayRequest) => {
    const proc = Bun.spawn(['sh', '-c', curlCommand(r, `http://127.0.0.1:${server.port}/base`)], { stdout: 'pipe', stderr: 'pipe' })
    expect(await proc.exited).toBe(0)
    return last!
  }

  test('text body with quotes and unicode', async () => {
    const body = `{"q":"it's $HOME \`x\` — ok"}`
    const got = await run({ method: 'POST', path: '/search/[1]', raw_query: 'a=1&b=x y', headers: { 'X-Trace': ["a'b"] }, body: b64(body) })
    expect(got.method).toBe('POST')
    expect(got.url).toBe('/base/search/[1]?a=1&b=x%20y')
    expect(got.headers['x-trace']).toBe("a'b")
    expect(new TextDecoder().decode(got.body)).toBe(body)
  })

  test('a GET with a body stays a GET; # in the query, dot segments and an empty header arrive as captured', async () => {
    const got = await run({ method: 'GET', path: '/a/./b/../c', raw_query: 'q=a#b&x=1', headers: { 'X-Empty': [''] }, body: b64('{"q":1}') })
    // Bun.serve reads no body of a GET; the command's -X GET keeps curl from making it a POST.
    expect(got.method).toBe('GET')
    // The server normalises the path it reports; what curl sent is read off the wire below.
    expect(got.url).toBe('/base/a/c?q=a%23b&x=1')
    expect(got.headers['x-empty']).toBe('')
  })

  test('the request line on the wire: method, dot segments and query as captured', async () => {
    const lines: string[] = []
    const wire = Bun.listen({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        data(socket, chunk) {
          lines.push(chunk.toString('latin1').split('\r\n')[0]!)
          socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
        },
      },
    })
    try {
      const command = curlCommand({ method: 'GET', path: '/a/./b/../c', raw_query: 'q=a#b', headers: {}, body: b64('{"q":1}') }, `http://127.0.0.1:${wire.port}`)
      const proc = Bun.spawn(['sh', '-c', command], { stdout: 'pipe', stderr: 'pipe' })
      expect(await proc.exited).toBe(0)
      expect(lines[0]).toBe('GET /a/./b/../c?q=a%23b HTTP/1.1')
    } finally {
      wire.stop(true)
    }
  })

  test('binary body arrives byte for byte', async () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i)
    const got = await run({ method: 'PUT', path: '/bin', headers: {}, body: b64(bytes) })
    expect(got.body).toEqual(bytes)
  })
})
