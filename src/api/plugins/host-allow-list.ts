import { Elysia } from 'elysia'
import { MisdirectedRequestError } from '../../errors/app-error.ts'
import type { AllowedHosts } from '../../net/allowed-hosts.ts'
import { pathOf } from '../../net/request-target.ts'
import { isProbePath } from '../public-paths.ts'

/**
 * SVC_APP_ALLOWED_HOSTS: a request naming another Host is a 421 (RFC 9110
 * §15.5.20) before rate limiting and authentication, so that a page that
 * reaches the API through DNS rebinding is told nothing else. Health and
 * metrics stay answered for any Host: orchestrators probe by IP.
 */
export function hostAllowList(allowed: AllowedHosts) {
  return new Elysia({ name: 'host-allow-list' }).onRequest(({ request }) => {
    if (allowed.allows(request.headers.get('host')) || isProbePath(pathOf(request.url))) return
    throw new MisdirectedRequestError()
  })
}
