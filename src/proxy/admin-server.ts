/**
 * The proxy's admin server on SVC_APP_ADMIN_PORT (docs/proxy.md "Admin server":
 * the same three paths as the API's unauthenticated ones): health and
 * metrics, on a listener of their own so that proxied traffic never
 * reaches them and they never shadow anything.
 */
import { PROMETHEUS_CONTENT_TYPE } from '../metrics/index.ts'
import { problemResponse } from '../errors/problem.ts'

export const READINESS_STATES = ['starting', 'ready', 'stopping'] as const
export type ReadinessState = (typeof READINESS_STATES)[number]

/**
 * docs/proxy.md "Admin server": `/health/ready` answers 200 when the
 * proxy is ready and 503 during startup (in API mode, until the gate is
 * fetched) or shutdown.
 */
export class Readiness {
  private _state: ReadinessState = 'starting'

  get state(): ReadinessState {
    return this._state
  }

  get ready(): boolean {
    return this._state === 'ready'
  }

  /** starting → ready; ignored once stopping. */
  markReady(): void {
    if (this._state === 'starting') this._state = 'ready'
  }

  markStopping(): void {
    this._state = 'stopping'
  }
}

/** What `/health/ready` reads: one process's Readiness, or with several workers the primary's view of them all. */
export interface ReadinessView {
  readonly state: ReadinessState
  readonly ready: boolean
}

export interface AdminServerOptions {
  readonly port: number
  /** @default '0.0.0.0' */
  readonly hostname?: string
  readonly readiness: ReadinessView
  /**
   * Serves `/metrics` with this exposition when given (SVC_APP_METRICS_ENABLED):
   * the registry's, or with several workers their merged one.
   */
  readonly metrics: (() => string | Promise<string>) | undefined
}

export interface AdminServer {
  readonly port: number
  readonly url: string
  stop(): Promise<void>
}

export function startAdminServer(options: AdminServerOptions): AdminServer {
  const { readiness, metrics } = options
  const server = Bun.serve({
    port: options.port,
    hostname: options.hostname ?? '0.0.0.0',
    reusePort: false,
    async fetch(request) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return problem(405, 'Method not allowed', request)
      const path = new URL(request.url).pathname
      switch (path) {
        case '/health/live':
          return Response.json({ status: 'ok' })
        case '/health/ready':
          return Response.json({ status: readiness.state }, { status: readiness.ready ? 200 : 503 })
        case '/metrics':
          if (metrics === undefined) break
          return new Response(await metrics(), { headers: { 'content-type': PROMETHEUS_CONTENT_TYPE } })
      }
      return problem(404, 'Not found', request)
    },
  })
  const port = server.port!
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      await server.stop(true)
    },
  }
}

function problem(status: 404 | 405, title: string, request: Request): Response {
  const type = status === 404 ? '/errors/not-found' : '/errors/method-not-allowed'
  const problem = problemResponse({ type, title, status, instance: new URL(request.url).pathname })
  if (status === 405) problem.headers.set('Allow', 'GET, HEAD')
  return problem
}
