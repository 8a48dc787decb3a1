import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { buildHub, buildIsStale } from './build-hub.ts'
import { mayReadRuntimeConfig, runtimeConfigScript } from './runtime-config.ts'
import { securityHeaders } from './security-headers.ts'
import { CACHE, indexPath, resolveStatic } from './static-files.ts'
import type { AllowedHosts } from '../net/allowed-hosts.ts'
import { listenOr } from '../net/listen.ts'
import { pathOf } from '../net/request-target.ts'

/** Default port of the hub server (docs/reference/configuration.md "Hub"). */
export const DEFAULT_HUB_PORT = 8070

export interface HubServerConfig {
  /** @default 8070; 0 picks a free port. */
  readonly port?: number
  /** @default '0.0.0.0' */
  readonly hostname?: string
  /** SVC_APP_API_BASE_URL: written to /config.js and added to the CSP's connect-src. */
  readonly apiBaseUrl: string
  /** SVC_APP_API_KEY: written to /config.js. Empty makes the page ask for a key. */
  readonly apiKey: string
  /** The built hub; built there first when it holds no build. */
  readonly distDir: string
  /** Bun.build `define` for that first build (see `viteDefine`). */
  readonly define?: Readonly<Record<string, string>>
  /** SVC_APP_ALLOWED_HOSTS: the Host values answered; others get a 421. @default any host */
  readonly allowedHosts?: AllowedHosts
}

/** What the server reports; the project's logger fits, and so does `console`. */
export interface HubServerLog {
  info(message: string, attributes?: Record<string, unknown>): void
  error(message: string, attributes?: Record<string, unknown>): void
}

export interface HubServer {
  readonly server: ReturnType<typeof Bun.serve>
  /** e.g. `http://127.0.0.1:8070` */
  readonly url: string
  /** The build being served (absolute). */
  readonly distDir: string
  stop(): Promise<void>
}

const SILENT: HubServerLog = { info() {}, error() {} }

/**
 * Starts the hub's static server: the built SPA, `/config.js` with the
 * runtime configuration, the SPA's index for client routes, and `/health`.
 * Every response but `/health` carries the security headers
 * (security-headers.ts); a request naming a host outside `allowedHosts`
 * gets a 421, `/health` excepted (orchestrators probe by IP).
 */
export async function startHubServer(config: HubServerConfig, log: HubServerLog = SILENT): Promise<HubServer> {
  const distDir = resolve(config.distDir)
  const stale = await buildIsStale(distDir, config.define)
  if (stale) {
    log.info(stale === 'missing' ? 'hub build not found, building' : 'hub sources or build settings changed since the build, rebuilding', { dir: distDir })
    const started = performance.now()
    await buildHub({ outDir: distDir, define: config.define })
    log.info('hub built', { dir: distDir, ms: Math.round(performance.now() - started) })
  }
  const handler = createHubHandler({ ...config, distDir }, log)
  const port = config.port ?? DEFAULT_HUB_PORT
  const server = listenOr('SVC_APP_PORT', port, () =>
    Bun.serve({ port, hostname: config.hostname ?? '0.0.0.0', reusePort: false, development: false, fetch: handler }),
  )
  const host = server.hostname === '0.0.0.0' || server.hostname === '::' ? '127.0.0.1' : server.hostname
  const url = `http://${host}:${server.port}`
  return {
    server,
    url,
    distDir,
    async stop() {
      await server.stop(true)
    },
  }
}

/**
 * The request handler on its own, for tests and for hosts other than
 * Bun.serve. Everything that depends only on the configuration (headers,
 * config.js) is computed here, once.
 */
export function createHubHandler(
  config: Pick<HubServerConfig, 'apiBaseUrl' | 'apiKey' | 'distDir' | 'allowedHosts'>,
  log: HubServerLog = SILENT,
): (req: Request) => Promise<Response> {
  const security = securityHeaders(config.apiBaseUrl)
  const configJs = runtimeConfigScript(config)
  const root = resolve(config.distDir)
  const index = indexPath(root)

  const respond = (body: BodyInit | null, status: number, headers: Record<string, string>) =>
    new Response(body, { status, headers: { ...headers, ...security } })

  const serveFile = async (req: Request, path: string, cache: string): Promise<Response> => {
    const file = Bun.file(path)
    const headers: Record<string, string> = {
      'Content-Type': file.type,
      'Cache-Control': cache,
      Vary: 'Accept-Encoding',
    }
    if (acceptsGzip(req) && (await exists(`${path}.gz`))) {
      headers['Content-Encoding'] = 'gzip'
      return respond(Bun.file(`${path}.gz`), 200, headers)
    }
    return respond(file, 200, headers)
  }

  return async (req) => {
    const pathname = pathnameOf(req.url)
    // /health is left untouched: no security headers (docs/hub.md "Serving").
    if (pathname === '/health') {
      return new Response('ok\n', { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' } })
    }
    // DNS rebinding: a page whose name now points here still names its own host.
    if (config.allowedHosts && !config.allowedHosts.allows(req.headers.get('host'))) {
      return respond('misdirected request\n', 421, { 'Content-Type': 'text/plain; charset=utf-8' })
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return respond('method not allowed\n', 405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' })
    }
    try {
      if (pathname === '/config.js') {
        if (!mayReadRuntimeConfig(req.headers)) {
          return respond('forbidden\n', 403, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': CACHE.config })
        }
        return respond(configJs, 200, {
          'Content-Type': 'text/javascript; charset=utf-8',
          'Cache-Control': CACHE.config,
        })
      }
      const found = await resolveStatic(root, pathname)
      switch (found.kind) {
        case 'file':
          return await serveFile(req, found.path, found.cache)
        case 'index':
          return await serveFile(req, index, CACHE.index)
        case 'not-found':
          return respond('not found\n', 404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache' })
        case 'bad-request':
          return respond('bad request\n', 400, { 'Content-Type': 'text/plain; charset=utf-8' })
      }
    } catch (error) {
      log.error('hub request failed', { path: pathname, error: String(error) })
      return respond('internal error\n', 500, { 'Content-Type': 'text/plain; charset=utf-8' })
    }
  }
}

/**
 * The URL's path, dot segments resolved. An empty or malformed `Host`
 * (`Host: x:99999`) makes `req.url` a bare target or a URL that `new URL`
 * refuses: its path is then taken as it is (resolveStatic still refuses
 * `..`).
 */
function pathnameOf(url: string): string {
  return URL.parse(url)?.pathname ?? pathOf(url)
}

function acceptsGzip(req: Request): boolean {
  return /\bgzip\b/i.test(req.headers.get('accept-encoding') ?? '')
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile()
  } catch {
    return false
  }
}
