import { type } from 'arktype'

export const paginationMeta = type({
  limit: 'number.integer',
  offset: 'number.integer',
  total: 'number.integer',
  has_more: 'boolean',
})

export const problem = type({
  type: 'string',
  title: 'string',
  status: 'number.integer',
  'detail?': 'string',
  'instance?': 'string',
  // createRequest's 500 caused by the capture itself (src/api/capture-rejected.ts).
  'capture_rejected?': 'true',
})

/**
 * A UUID in a path, lower-cased: PostgreSQL reads either case as the same
 * id, and so must everything keyed by the text (the `gate` metric label,
 * the gate settings cache), or one gate would count under 2^n spellings.
 */
export const pathUuid = type('string.uuid').pipe((id) => id.toLowerCase())

export const gateIdParams = type({ gate_id: pathUuid })
export const requestIdParams = type({ gate_id: pathUuid, request_id: pathUuid })

export const config = type({ retention: 'string' })

export const globalStats = type({
  total_gates: 'number.integer',
  total_requests_24h: 'number.integer',
  total_diff_rate: 'number',
})

/**
 * The error statuses an operation documents (docs/reference/api.md
 * "Operations"), each a Problem, for its `response` map and so for the OpenAPI
 * description.
 */
export function problems<const S extends readonly number[]>(...statuses: S): { [K in S[number]]: typeof problem } {
  return Object.fromEntries(statuses.map((status) => [status, problem])) as { [K in S[number]]: typeof problem }
}
