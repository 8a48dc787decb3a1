import { InvalidBodyError, PayloadTooLargeError } from '../errors/app-error.ts'
import { parseDateTime } from '../text/date-time.ts'
import type { createRequestBody } from './schemas/request-schemas.ts'

type CreateRequestBody = typeof createRequestBody.infer

/**
 * What createRequest's raw body may hold besides its base64 bodies: the header
 * maps, the metadata and a submitted diff (README "API overview", body limits).
 * 1 MiB.
 */
export const CAPTURE_METADATA_ALLOWANCE = 1024 * 1024

/** The length of the base64 text of `bytes` bytes (RFC 4648 §4, padded). */
function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3)
}

/**
 * createRequest's limit on its raw request body, derived from
 * SVC_APP_MAX_BODY_SIZE, which applies to each decoded body: four bodies
 * at the limit as base64 (the request's, live's, the shadow's and live's
 * second answer of a noise check) plus CAPTURE_METADATA_ALLOWANCE. So a
 * capture the proxy kept under the same SVC_APP_MAX_BODY_SIZE is never
 * refused whole for the sum of its bodies.
 */
export function captureRequestLimit(maxBodyBytes: number): number {
  return CAPTURE_BODIES * base64Length(maxBodyBytes) + CAPTURE_METADATA_ALLOWANCE
}

/** The bodies a capture may carry, each within SVC_APP_MAX_BODY_SIZE. */
const CAPTURE_BODIES = 4

/** The number of bytes a (validated) base64 text decodes to, without decoding it. */
export function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0
  const chars = base64.length - padding
  return Math.floor((chars * 3) / 4)
}

export interface CaptureLimits {
  /** SVC_APP_MAX_BODY_SIZE: each decoded body at most this many bytes. */
  readonly maxBodyBytes: number
  /** SVC_APP_MAX_CLOCK_SKEW, in ms and as written. */
  readonly maxClockSkewMs: number
  readonly maxClockSkew: string
}

/**
 * The checks of a capture that its schema cannot make: each decoded body
 * within SVC_APP_MAX_BODY_SIZE (413 naming the body), and no created_at
 * further ahead of the server's clock than SVC_APP_MAX_CLOCK_SKEW (400
 * naming the field): a capture dated years ahead would sit at the top of
 * every list and outlive any retention.
 */
export function checkCaptureLimits(body: CreateRequestBody, limits: CaptureLimits, now = Date.now()): void {
  const bodies: Array<[string, string]> = [
    ['body', body.body],
    ['live_response.body', body.live_response.body],
    ['shadow_response.body', body.shadow_response.body],
    ...(body.live_repeat_response === undefined ? [] : [['live_repeat_response.body', body.live_repeat_response.body] as [string, string]]),
  ]
  for (const [field, base64] of bodies) {
    if (decodedLength(base64) > limits.maxBodyBytes) throw new PayloadTooLargeError(limits.maxBodyBytes, field)
  }
  const latest = now + limits.maxClockSkewMs
  const times: Array<[string, string]> = [
    ['created_at', body.created_at],
    ['live_response.created_at', body.live_response.created_at],
    ['shadow_response.created_at', body.shadow_response.created_at],
    ...(body.live_repeat_response === undefined
      ? []
      : [['live_repeat_response.created_at', body.live_repeat_response.created_at] as [string, string]]),
  ]
  for (const [field, text] of times) {
    const time = parseDateTime(text)?.getTime()
    if (time !== undefined && time > latest) {
      throw new InvalidBodyError(
        `${field} must not be more than ${limits.maxClockSkew} ahead of the server's clock (SVC_APP_MAX_CLOCK_SKEW)`,
        field,
      )
    }
  }
}

const CAPTURE_ROUTE = /^\/gates\/[^/]+\/requests\/?$/

/** Whether a request is createRequest (POST /gates/{gate_id}/requests), for its body limit. */
export function isCaptureRoute(method: string, path: string): boolean {
  return method === 'POST' && CAPTURE_ROUTE.test(path)
}
