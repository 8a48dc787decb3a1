import type { Server } from 'bun'
import type { Logger } from '../log/index.ts'
import { limitBody } from './body-limit.ts'
import type { BearerVerdict } from './plugins/auth.ts'
import { CORS_EXPOSED_HEADERS } from './cors-settings.ts'
import { problemResponse } from '../errors/problem.ts'
import { problemFromError } from './problem.ts'
import { requestFacts, setRequestFacts } from './request-context.ts'
import { REQUEST_ID_HEADER, requestIdOf } from '../net/request-id.ts'
import { pathOf } from '../net/request-target.ts'
import { securityHeaders } from './security-headers.ts'

export interface HttpHandlerOptions {
  readonly handle: (request: Request) => Promise<Response>
  readonly logger: Logger
  /**
   * The most bytes a request body may have, for a method and path:
   * SVC_APP_MAX_BODY_SIZE, except createRequest's derived limit
   * (capture-limits.ts).
   */
  readonly bodyLimit: (method: string, path: string) => number
  /**
   * The app's authentication: a request it will refuse is handed over with
   * its body unread, so that a client without the key cannot make the API
   * buffer a chunked body of up to maxBodyBytes before its 401.
   */
  readonly authorized?: (request: Request) => BearerVerdict
  readonly hstsMaxAgeSeconds: number | undefined
  /**
   * SVC_APP_CORS_ORIGINS, for the responses made here rather than by the
   * app (a body over the limit): a browser client must be able to read them
   * too. @default none
   */
  readonly corsOrigins?: readonly string[]
  /** Called once per response, for the request-duration histogram. */
  readonly observe: (method: string, status: number, route: string, seconds: number) => void
}

/**
 * The edge around the Elysia app: what must hold for every response, even
 * one Elysia never produced (a body over the limit, a crash): the request
 * id, the security headers, the metric and the access log record.
 */
export function createHttpHandler(options: HttpHandlerOptions) {
  const headers = securityHeaders(options.hstsMaxAgeSeconds)
  const corsOrigins = new Set(options.corsOrigins ?? [])
  return async function fetch(request: Request, server: Server<unknown>): Promise<Response> {
    const started = performance.now()
    const requestId = requestIdOf(request.headers)
    const peerAddress = server.requestIP(request)?.address ?? ''
    const path = pathOf(request.url)
    let response: Response
    let handled = request
    try {
      const refused = options.authorized !== undefined && options.authorized(request) !== 'pass'
      handled = refused ? request : await limitBody(request, options.bodyLimit(request.method, path))
      setRequestFacts(handled, { requestId, peerAddress })
      response = await options.handle(handled)
    } catch (error) {
      const problem = problemFromError(error, path, requestId)
      if (problem.status >= 500) {
        options.logger.error('unexpected error', { 'request.id': requestId, error: String(error) })
      }
      response = problemResponse(problem)
      const origin = request.headers.get('origin')
      if (origin !== null && corsOrigins.has(origin)) {
        response.headers.set('Access-Control-Allow-Origin', origin)
        response.headers.set('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(', '))
        response.headers.set('Vary', 'Origin')
      }
    }
    for (const [name, value] of headers) response.headers.set(name, value)
    response.headers.set(REQUEST_ID_HEADER, requestId)
    const seconds = (performance.now() - started) / 1000
    const route = requestFacts(handled).route ?? ''
    options.observe(request.method, response.status, route, seconds)
    options.logger.info('request', {
      'request.id': requestId,
      'request.method': request.method,
      'request.path': path,
      'http.route': route,
      'response.status': response.status,
      'response.latency': Math.round(seconds * 1e6) / 1e3,
    })
    return response
  }
}
