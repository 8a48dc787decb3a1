/**
 * Examples for the OpenAPI description, which Swagger UI puts in "Try it
 * out": a request body per operation that takes one (each valid as it
 * stands: a test sends every one to a real API), an RFC 7807 problem per
 * error status, and the headers a response carries (X-Request-ID on every
 * one, Retry-After on 429 and 503, WWW-Authenticate on 401).
 */

import {
  ConflictError,
  InvalidBodyError,
  InvalidParameterError,
  MethodNotAllowedError,
  MisdirectedRequestError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  UnauthorizedError,
  UnavailableError,
} from '../errors/app-error.ts'
import type { Problem } from '../errors/problem.ts'
import { problemFromError } from './problem.ts'

const b64 = (text: string) => Buffer.from(text).toString('base64')
const JSON_TYPE = { 'Content-Type': ['application/json'] }
const DIFF_CONFIG = { ignored_fields: ['body.request_id', 'body.generated_at'], included_fields: [], float_tolerance: 0, sort_arrays: false }

/** By operationId: a body each operation takes. */
export const REQUEST_EXAMPLES: Readonly<Record<string, unknown>> = {
  createGate: { name: 'checkout', live_url: 'http://checkout-live:8080', shadow_url: 'http://checkout-candidate:8080' },
  updateGate: {
    diff_config: DIFF_CONFIG,
    redacted_fields: ['body.card.number'],
    retention: '2160h',
    endpoints: ['/v2/products/{sku}/price'],
    verdict: { max_diff_rate: 0.02, min_requests: 200 },
  },
  createRequest: {
    method: 'GET',
    path: '/v2/products/15028',
    raw_query: 'currency=eur',
    headers: { Accept: ['application/json'] },
    body: '',
    created_at: '2026-11-26T10:00:00.000Z',
    live_response: {
      status_code: 200,
      headers: JSON_TYPE,
      body: b64('{"sku":15028,"price":12.5,"request_id":"a1"}'),
      latency_ms: 12,
      created_at: '2026-11-26T10:00:00.012Z',
    },
    shadow_response: {
      status_code: 200,
      headers: JSON_TYPE,
      body: b64('{"sku":15028,"price":12.9,"request_id":"b7"}'),
      latency_ms: 15,
      created_at: '2026-11-26T10:00:00.015Z',
    },
  },
  previewDiffConfig: { diff_config: DIFF_CONFIG, limit: 1000 },
  startRediff: { from: '2026-11-26T00:00:00.000Z' },
}

/**
 * A problem as each error status answers it, made by the same code that
 * answers it (problem.ts, the error classes), so an example never drifts
 * from what the API sends.
 */
const PROBLEM_EXAMPLES: Readonly<Record<string, Problem>> = Object.fromEntries(
  [
    new InvalidBodyError('live_url must be absolute: an http:// or https:// URL without a query or fragment'),
    new UnauthorizedError(),
    new NotFoundError('no gate with id 0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40'),
    new MethodNotAllowedError('PUT is not allowed on this path; allowed: GET, PATCH, DELETE', ['GET', 'PATCH', 'DELETE']),
    new ConflictError('a gate with this name already exists'),
    new PayloadTooLargeError(10 * 1024 * 1024),
    new MisdirectedRequestError(),
    new RateLimitedError(1),
    new UnavailableError('the database is not ready for this build: run `bun run migrate`', 5),
    new Error('an example of the unexpected'),
  ].map((error) => {
    const problem = problemFromError(error, '/gates', '5b1f0c0e-8f39-4d7e-9a2b-3c4d5e6f7a81')
    return [String(problem.status), problem]
  }),
)

/** A 400 of an operation without a body is about a parameter. */
const PARAMETER_PROBLEM = problemFromError(new InvalidParameterError('limit must be an integer from 1 to 100', 'limit'), '/gates')

export function problemExample(status: string, takesBody: boolean): Problem | undefined {
  return status === '400' && !takesBody ? PARAMETER_PROBLEM : PROBLEM_EXAMPLES[status]
}

const REQUEST_ID_HEADER = {
  description: "The request's id: the client's X-Request-ID when it is a valid one, else generated; logged with the request",
  schema: { type: 'string' },
}

/** The headers a response with `status` carries. */
export function responseHeaders(status: string): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'X-Request-ID': REQUEST_ID_HEADER }
  if (status === '429' || status === '503') {
    headers['Retry-After'] = { description: 'Seconds to wait before asking again', schema: { type: 'integer', minimum: 1 } }
  }
  if (status === '401') headers['WWW-Authenticate'] = { description: '`Bearer`: the API key goes in an Authorization header', schema: { type: 'string' } }
  return headers
}
