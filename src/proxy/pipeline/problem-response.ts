/**
 * The proxy's own answers when live gives none (504 on expiry of the live
 * timeout, 502 on a refused connection), as RFC 7807 Problem documents in
 * the shape of docs/reference/api.md "Problems". `instance` is for 4xx only,
 * so these 5xx carry none.
 */
import type { Problem } from '../../errors/problem.ts'
import type { UpstreamError } from '../upstream/upstream-error.ts'

/** 504 when live did not answer in time; 502 when it could not be reached or broke the exchange. */
export function liveFailureProblem(error: UpstreamError): Problem {
  if (error.kind === 'timeout') {
    return { type: '/errors/gateway-timeout', title: 'Gateway timeout', status: 504, detail: error.message }
  }
  return { type: '/errors/bad-gateway', title: 'Bad gateway', status: 502, detail: error.message }
}
