import { Elysia } from 'elysia'
import { createHash, timingSafeEqual } from 'node:crypto'
import { UnauthorizedError } from '../../errors/app-error.ts'
import { pathOf } from '../../net/request-target.ts'
import { isPublicPath } from '../public-paths.ts'

export interface AuthOptions {
  readonly apiKey: string
  /** When CORS is on, preflights carry no credentials and must pass. */
  readonly allowPreflight: boolean
}

/**
 * Bearer authentication (SPEC.md "Authentication"). Keys are compared as
 * SHA-256 digests with timingSafeEqual: constant time, and equal lengths
 * whatever the length of the presented key.
 */
export function bearerAuth(options: AuthOptions) {
  const expected = digest(options.apiKey)
  return new Elysia({ name: 'bearer-auth' }).onRequest(({ request }) => {
    const path = pathOf(request.url)
    if (isPublicPath(path)) return
    if (options.allowPreflight && request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) return
    const header = request.headers.get('authorization') ?? ''
    const match = /^Bearer\s+(.+)$/i.exec(header.trim())
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      throw new UnauthorizedError(match ? 'the bearer key is not valid' : undefined)
    }
  })
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key).digest()
}
