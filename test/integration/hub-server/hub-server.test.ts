import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runInNewContext } from 'node:vm'
import { gunzipSync } from 'node:zlib'
import { contentSecurityPolicy, startHubServer, viteDefine } from '../../../src/hub-server/index.ts'
import type { HubServer } from '../../../src/hub-server/index.ts'
import { loadHubConfig } from '../../../src/config/hub-config.ts'

const API = 'http://api.example.test:8090/base'
const KEY = 'hub-test-key-0123456789'

/** The hub's security headers, CORP included (docs/hub.md "Serving"). */
const SECURITY = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; " +
    "connect-src 'self' http://api.example.test:8090; object-src 'none'; base-uri 'self'; " +
    "form-action 'self'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'cross-origin-resource-policy': 'same-origin',
}

let tmp: string
let distDir: string
let hub: HubServer
let script: string

/** Sends a request line and Host exactly as written (fetch would normalise the path). */
function rawGet(path: string, host = '127.0.0.1', server: HubServer = hub): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const port = server.server.port as number
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
    })
    let data = ''
    socket.setEncoding('latin1')
    socket.on('data', (d) => (data += d))
    socket.on('end', () => resolve({ status: Number(data.split(' ')[1]), text: data }))
    socket.on('error', reject)
  })
}

const get = (path: string, init?: RequestInit) => fetch(`${hub.url}${path}`, init)

function expectSecurityHeaders(res: Response) {
  for (const [name, value] of Object.entries(SECURITY)) expect(res.headers.get(name)).toBe(value)
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'svc-hub-it-'))
  distDir = join(tmp, 'dist')
  await writeFile(join(tmp, 'secret.txt'), 'TOP-SECRET-OUTSIDE-DIST')
  // No build there yet: the server must build first.
  hub = await startHubServer({ port: 0, hostname: '127.0.0.1', apiBaseUrl: API, apiKey: KEY, distDir })
  const html = await (await get('/')).text()
  script = /src="(\/assets\/main-[^"]+\.js)"/.exec(html)?.[1] ?? ''
  // A symlink inside the build that points outside it must not be followed.
  await symlink(join(tmp, 'secret.txt'), join(distDir, 'assets', 'link.txt'))
  await mkdir(join(distDir, '.hidden'), { recursive: true })
  await writeFile(join(distDir, '.hidden', 'x.txt'), 'hidden')
})

afterAll(async () => {
  await hub?.stop()
  await rm(tmp, { recursive: true, force: true })
})

describe('hub server', () => {
  test('a port in use is one line naming SVC_APP_PORT, even against a server that reuses ports', async () => {
    const taken = Bun.serve({ hostname: '127.0.0.1', port: 0, development: false, fetch: () => new Response('other') })
    try {
      await expect(startHubServer({ port: taken.port as number, hostname: '127.0.0.1', apiBaseUrl: API, apiKey: KEY, distDir })).rejects.toThrow(
        `SVC_APP_PORT: "${taken.port}" is already in use by another process`,
      )
    } finally {
      taken.stop(true)
    }
  })

  test('builds the hub when the dist directory holds no build', async () => {
    expect(await Bun.file(join(distDir, 'index.html')).exists()).toBe(true)
    expect(script).toMatch(/^\/assets\/main-[a-z0-9]+\.js$/)
  })

  test('/health answers 200 and is left untouched: no security headers', async () => {
    const res = await get('/health')
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('ok\n')
    for (const name of Object.keys(SECURITY)) expect(res.headers.has(name)).toBe(false)
  })

  test('the index has exactly the documented security headers and is not cached', async () => {
    const res = await get('/')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/html')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    expectSecurityHeaders(res)
    const html = await res.text()
    expect(html).toContain('<script src="/config.js"></script>')
    // CSP-safe: no inline script or style in the page.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(html).not.toMatch(/<style|\sstyle=/)
  })

  test.each(['/gates/6f1c2a8e-1111-4222-8333-444455556666', '/gates/g/requests/r', '/gates?has_diff=true', '/index.html'])(
    'client route %p gets the SPA index',
    async (path) => {
      const res = await get(path)
      expect(res.status).toBe(200)
      expect(res.headers.get('cache-control')).toBe('no-cache')
      expect(await res.text()).toContain('<svc-app></svc-app>')
      expectSecurityHeaders(res)
    },
  )

  test('/config.js carries the runtime configuration and is never cached', async () => {
    const res = await get('/config.js')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/javascript')
    expect(res.headers.get('cache-control')).toContain('no-cache')
    expect(res.headers.get('cache-control')).toContain('no-store')
    expectSecurityHeaders(res)
    const sandbox: { globalThis?: unknown; __SVC_HUB_CONFIG__?: unknown } = {}
    runInNewContext(await res.text(), sandbox)
    expect(sandbox.__SVC_HUB_CONFIG__).toEqual({ apiBaseUrl: API, apiKey: KEY })
  })

  test.each(['cross-site', 'same-site', 'other'])('/config.js is refused to a %s request: the key stays out of foreign pages', async (site) => {
    const res = await get('/config.js', { headers: { 'Sec-Fetch-Site': site, 'Sec-Fetch-Dest': 'script', 'Sec-Fetch-Mode': 'no-cors' } })
    expect(res.status).toBe(403)
    expect(res.headers.get('cache-control')).toContain('no-store')
    expectSecurityHeaders(res)
    expect(await res.text()).not.toContain(KEY)
  })

  test.each(['same-origin', 'none'])('/config.js is served to a %s request', async (site) => {
    const res = await get('/config.js', { headers: { 'Sec-Fetch-Site': site } })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain(KEY)
  })

  test('hashed assets are cached for a year and immutable, gzip when accepted', async () => {
    const plain = await get(script, { headers: { 'Accept-Encoding': 'identity' } })
    expect(plain.status).toBe(200)
    expect(plain.headers.get('content-type')).toStartWith('text/javascript')
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(plain.headers.get('content-encoding')).toBeNull()
    expectSecurityHeaders(plain)
    const body = new Uint8Array(await plain.arrayBuffer())

    const gz = await get(script, { headers: { 'Accept-Encoding': 'gzip, br' }, decompress: false } as RequestInit)
    expect(gz.headers.get('content-encoding')).toBe('gzip')
    expect(gz.headers.get('vary')).toBe('Accept-Encoding')
    expect(new Uint8Array(gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toEqual(body)
  })

  test.each(['/assets/main-00000000.js', '/favicon.ico', '/robots.txt', '/.hidden/x.txt', '/assets/link.txt'])(
    'a missing or hidden file %p is a 404, not the index',
    async (path) => {
      const res = await get(path)
      expect(res.status).toBe(404)
      expectSecurityHeaders(res)
    },
  )

  test.each([
    '/../secret.txt',
    '/../../../../etc/passwd',
    '/%2e%2e/secret.txt',
    '/%2E%2E/%2E%2E/etc/passwd',
    '/..%2fsecret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    '/..%5csecret.txt',
    '/%00/secret.txt',
    '/assets/%c0%ae%c0%ae/secret.txt',
    '//etc/passwd',
  ])('traversal %p never escapes the build', async (path) => {
    const res = await rawGet(path)
    // URL parsing may fold `..` away first; what is left is then an unknown
    // client route, answered with the SPA index.
    if (res.status === 200) expect(res.text).toContain('<svc-app></svc-app>')
    else expect([400, 404]).toContain(res.status)
    expect(res.text).not.toContain('TOP-SECRET')
    expect(res.text).not.toContain('root:')
    expect(res.text).toContain('X-Frame-Options: DENY')
  })

  test.each(['', 'a b', 'x:99999'])('a malformed Host %p is answered, not a 500', async (host) => {
    const res = await rawGet('/gates/x', host)
    expect(res.status).toBe(200)
    expect(res.text).toContain('<svc-app></svc-app>')
  })

  test('only GET and HEAD are served', async () => {
    const post = await get('/', { method: 'POST', body: 'x' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD')
    expectSecurityHeaders(post)
    const head = await get('/', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
  })

  test('the favicon is served with a short cache', async () => {
    const res = await get('/favicon.svg')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('image/svg+xml')
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600')
  })
})

describe('SVC_APP_ALLOWED_HOSTS (DNS rebinding)', () => {
  let guarded: HubServer
  beforeAll(async () => {
    guarded = await startHubServer({
      port: 0,
      hostname: '127.0.0.1',
      apiBaseUrl: API,
      apiKey: KEY,
      distDir,
      allowedHosts: loadHubConfig({ SVC_APP_API_BASE_URL: API, SVC_APP_ALLOWED_HOSTS: '127.0.0.1,localhost' }).allowedHosts,
    })
  })
  afterAll(async () => {
    await guarded?.stop()
  })

  test.each(['/', '/config.js', 'the app script', '/gates/x', '/nope.js'])('%s under another Host is a plain 421 that leaks nothing', async (target) => {
    const path = target === 'the app script' ? script : target
    for (const host of ['rebound.evil.test', 'rebound.evil.test:8070', '127.0.0.2', '[::1]', 'localhost.evil.test', '']) {
      const res = await rawGet(path, host, guarded)
      expect(res.status).toBe(421)
      expect(res.text).toContain('X-Frame-Options: DENY')
      expect(res.text).toContain('Cross-Origin-Resource-Policy: same-origin')
      expect(res.text).not.toContain(KEY)
      expect(res.text).not.toContain('<svc-app>')
    }
  })

  test('the hosts listed are served, any port and case', async () => {
    for (const host of ['127.0.0.1', `127.0.0.1:${guarded.server.port}`, 'LocalHost:8070', 'localhost']) {
      const res = await rawGet('/config.js', host, guarded)
      expect(res.status).toBe(200)
      expect(res.text).toContain(KEY)
    }
  })

  test('/health answers under any Host: orchestrators probe by IP', async () => {
    const res = await rawGet('/health', '10.1.2.3:8070', guarded)
    expect(res.status).toBe(200)
    expect(res.text).toEndWith('ok\n')
  })
})

describe('runtime config script', () => {
  test('values cannot break out of the expression', async () => {
    const nasty = `k"';</script><script>alert(1)</script>\u2028\u2029\\`
    const tmp2 = await mkdtemp(join(tmpdir(), 'svc-hub-it2-'))
    const other = await startHubServer({ port: 0, hostname: '127.0.0.1', apiBaseUrl: '', apiKey: nasty, distDir })
    try {
      const res = await fetch(`${other.url}/config.js`)
      const sandbox: { __SVC_HUB_CONFIG__?: unknown } = {}
      runInNewContext(await res.text(), sandbox)
      expect(sandbox.__SVC_HUB_CONFIG__).toEqual({ apiBaseUrl: '', apiKey: nasty })
      // Without an API base, the API is the hub's own origin: connect-src stays 'self'.
      expect(res.headers.get('content-security-policy')).toContain("connect-src 'self';")
    } finally {
      await other.stop()
      await rm(tmp2, { recursive: true, force: true })
    }
  })
})

describe('contentSecurityPolicy', () => {
  test('connect-src is widened by the API origin only (no path)', () => {
    expect(contentSecurityPolicy('https://api.example.com/v1/')).toContain("connect-src 'self' https://api.example.com;")
  })

  test.each(['api.example.com', 'ftp://x', 'javascript:alert(1)'])('refuses %p as an API base', (base) => {
    expect(() => contentSecurityPolicy(base)).toThrow('must be an absolute http(s) URL')
  })
})

describe('a build made from other sources or settings', () => {
  test('is rebuilt: a key once compiled in does not outlive the setting', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-hub-stale-'))
    const dist = join(dir, 'dist')
    const lines: string[] = []
    const log = { info: (msg: string) => void lines.push(msg), error: (msg: string) => void lines.push(msg) }
    const bundle = async () => {
      const html = await Bun.file(join(dist, 'index.html')).text()
      return Bun.file(join(dist, /src="\/(assets\/main-[^"]+\.js)"/.exec(html)![1]!)).text()
    }
    const start = (define: Record<string, string>) =>
      startHubServer({ port: 0, hostname: '127.0.0.1', apiBaseUrl: API, apiKey: '', distDir: dist, define }, log)
    try {
      let server = await start(viteDefine({ apiKey: 'compiled-in-key-0123456789' }))
      await server.stop()
      expect(await bundle()).toContain('compiled-in-key-0123456789')
      // The fingerprint beside the build is a digest: the key is not in it.
      expect(await Bun.file(join(dist, '.build-fingerprint')).text()).not.toContain('compiled-in-key')

      server = await start(viteDefine({}))
      await server.stop()
      expect(lines).toEqual(['hub build not found, building', 'hub built', 'hub sources or build settings changed since the build, rebuilding', 'hub built'])
      expect(await bundle()).not.toContain('compiled-in-key-0123456789')

      // The same sources and settings again: the build is kept, and its fingerprint is not served.
      server = await start(viteDefine({}))
      expect((await fetch(`${server.url}/.build-fingerprint`)).status).toBe(404)
      await server.stop()
      expect(lines).toHaveLength(4)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
