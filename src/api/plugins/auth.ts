import { Elysia } from 'elysia'
import { createHash, timingSafeEqual } from 'node:crypto'
import { UnauthorizedError } from '../../errors/app-error.ts'
import { pathOf } from '../../net/request-target.ts'
import type { ApiConfig } from '../../config/api-config.ts'
import { isPublicPath } from '../public-paths.ts'

export interface AuthOptions {
  readonly apiKey: string
  /** When CORS is on, preflights carry no credentials and must pass. */
  readonly allowPreflight: boolean
}

/** Whether a request may pass: a public path, a preflight, the right key. */
export type BearerVerdict = 'pass' | 'no-key' | 'wrong-key'

/**
 * Bearer authentication (docs/reference/api.md "Conventions"). Keys are
 * compared as SHA-256 digests with timingSafeEqual: constant time, and equal
 * lengths whatever the length of the presented key. Used by the plugin and by
 * the edge, which must not read the body of a request that will be refused
 * (http-handler.ts).
 */
export function bearerCheck(options: AuthOptions): (request: Request) => BearerVerdict {
  const expected = digest(options.apiKey)
  return (request) => {
    if (isPublicPath(pathOf(request.url))) return 'pass'
    if (options.allowPreflight && request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) return 'pass'
    const header = request.headers.get('authorization') ?? ''
    const match = /^Bearer\s+(.+)$/i.exec(header.trim())
    if (!match) return 'no-key'
    return timingSafeEqual(digest(match[1]!), expected) ? 'pass' : 'wrong-key'
  }
}

/** The check for the API's settings: its key, and preflights when CORS is on. */
export function apiBearerCheck(config: Pick<ApiConfig, 'apiKey' | 'corsOrigins'>): (request: Request) => BearerVerdict {
  return bearerCheck({ apiKey: config.apiKey, allowPreflight: config.corsOrigins.length > 0 })
}

/** Bearer authentication on every request, before its body is parsed. */
export function bearerAuth(check: (request: Request) => BearerVerdict) {
  return new Elysia({ name: 'bearer-auth' }).onRequest(({ request }) => {
    const verdict = check(request)
    if (verdict !== 'pass') throw new UnauthorizedError(verdict === 'wrong-key' ? 'the bearer key is not valid' : undefined)
  })
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key).digest()
}
