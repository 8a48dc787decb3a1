import { Elysia } from 'elysia'
import type { CidrSet } from '../../net/cidr.ts'
import { RateLimitedError } from '../../errors/app-error.ts'
import { clientIp } from '../rate-limit/client-ip.ts'
import { rateLimitKey } from '../rate-limit/rate-limit-key.ts'
import { TokenBuckets } from '../rate-limit/token-bucket.ts'
import { requestFacts } from '../request-context.ts'
import { pathOf } from '../../net/request-target.ts'
import { isPublicPath } from '../public-paths.ts'

export interface RateLimitOptions {
  /** SVC_APP_RATE_LIMIT. @default 1000 */
  readonly perMinute: number
  readonly trustedProxies: CidrSet
  /** SVC_APP_RATE_LIMIT_EXEMPT: clients, by their address as the limiter reads it, never limited. */
  readonly exempt?: CidrSet
  readonly now?: () => number
}

/**
 * Token bucket per client IP in front of every non-public route
 * (docs/reference/api.md "Conventions": health, metrics and the docs are
 * exempt). It runs before authentication, so guessing keys is rate limited too.
 * State is per replica. A proxy in API mode sends one capture per shadowed
 * request from one address, which is why an operator can exempt its address
 * (README "Scaling out").
 */
export function rateLimit(options: RateLimitOptions) {
  const buckets = new TokenBuckets({ perMinute: options.perMinute, now: options.now })
  return new Elysia({ name: 'rate-limit' }).onRequest(({ request }) => {
    const path = pathOf(request.url)
    if (isPublicPath(path)) return
    const peer = requestFacts(request).peerAddress
    const client = clientIp(peer, request.headers, options.trustedProxies)
    if (client && options.exempt?.contains(client)) return
    const verdict = buckets.take(client ? rateLimitKey(client) : peer)
    if (!verdict.allowed) throw new RateLimitedError(verdict.retryAfterSeconds)
  })
}
