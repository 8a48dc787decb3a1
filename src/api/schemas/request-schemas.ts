import { type } from 'arktype'
import { paginationMeta } from './common.ts'
import { signatureIdQuery } from './insight-schemas.ts'
import {
  base64String,
  booleanQuery,
  dateTimeQuery,
  dateTimeString,
  headerMap,
  integerQuery,
  sortOrder,
  storableText,
  submittedHeaderMap,
} from './fields.ts'
import { rule } from './rule.ts'

/**
 * RFC 6901 pointers into the compared document `{status, headers, body}`:
 * empty, or `/status`, `/headers` or `/body` and tokens below, in which `~`
 * only starts `~0` or `~1`. A token excludes `/`, so the pattern runs in
 * linear time (with `[^~]` it backtracked exponentially on `////…~`).
 */
const documentPointer = type('string').narrow(
  rule((text: string) =>
    /^(\/(status|headers|body)(\/([^/~]|~[01])*)*)?$/.test(text)
      ? undefined
      : 'a JSON Pointer into {status, headers, body} such as /body/items/0',
  ),
)

/**
 * A PatchOp (docs/reference/api.md "Capture (request)"): `value` present for
 * add and replace, omitted for remove.
 */
const submittedPatchOp = type({ op: "'add' | 'replace'", path: documentPointer, value: 'unknown', '+': 'reject' }).or({
  op: "'remove'",
  path: documentPointer,
  '+': 'reject',
})

export const submittedDiffPayload = type({ content: submittedPatchOp.array(), '+': 'reject' })

/** As stored and returned: the shape alone, so that rows written by earlier versions still read. */
const patchOp = type({
  op: "'add' | 'remove' | 'replace'",
  path: 'string',
  'value?': 'unknown',
})

const diffPayload = type({ content: patchOp.array() })

/**
 * Milliseconds, stored as int64: at most 2^53 - 1, the largest integer a
 * JSON number carries exactly (above it the stored value would not be the
 * one sent; far above, PostgreSQL refused the row with a 500).
 */
const latency = type('number.integer').narrow(
  rule((ms: number) => (ms >= 0 && ms <= Number.MAX_SAFE_INTEGER ? undefined : `an integer from 0 to ${Number.MAX_SAFE_INTEGER} (ms)`)),
)

/**
 * An HTTP status (RFC 9110 §15: three digits, 100 to 599), or 0 for an upstream
 * that gave no response (docs/reference/api.md "Capture (request)", Response).
 * 0 stays allowed for live too: the proxy reports a live that failed (answered
 * 502/504 to its client) with status 0 and the error as body.
 */
const statusCode = type('number.integer').narrow(
  rule((status: number) =>
    status === 0 || (status >= 100 && status <= 599)
      ? undefined
      : 'an HTTP status from 100 to 599, or 0 for an upstream that gave no response',
  ),
)

export const responsePayloadBody = type({
  'id?': 'string.uuid',
  status_code: statusCode,
  headers: submittedHeaderMap,
  body: base64String,
  latency_ms: latency,
  created_at: dateTimeString,
  '+': 'reject',
})

export const createRequestBody = type({
  'id?': 'string.uuid',
  method: /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/,
  path: storableText,
  'raw_query?': storableText,
  headers: submittedHeaderMap,
  body: base64String,
  created_at: dateTimeString,
  live_response: responsePayloadBody,
  shadow_response: responsePayloadBody,
  'diff?': submittedDiffPayload,
  /** Live's second answer to the same request: a noise check (docs/insights.md "Noise"). */
  'live_repeat_response?': responsePayloadBody,
  '+': 'reject',
})

const responseSummary = type({ status_code: 'number.integer', latency_ms: 'number.integer' })

export const requestSummary = type({
  id: 'string.uuid',
  method: 'string',
  path: 'string',
  'raw_query?': 'string',
  created_at: 'string',
  live_response: responseSummary,
  shadow_response: responseSummary,
  has_diff: 'boolean',
  /** The endpoint template (docs/insights.md); null only for a capture not yet backfilled. */
  template: 'string | null',
  /** The diff signature's id; null without a diff. */
  signature_id: 'string | null',
})

const responsePayload = type({
  id: 'string.uuid',
  status_code: 'number.integer',
  headers: headerMap,
  body: 'string',
  latency_ms: 'number.integer',
  created_at: 'string',
})

export const requestDetail = type({
  id: 'string.uuid',
  method: 'string',
  path: 'string',
  'raw_query?': 'string',
  headers: headerMap,
  body: 'string',
  created_at: 'string',
  live_response: responsePayload,
  shadow_response: responsePayload,
  diff: diffPayload,
  template: 'string | null',
  signature_id: 'string | null',
  /** Live's second answer (a noise check); null when none was made. */
  live_repeat_response: responsePayload.or('null'),
  /** What differed between live's two answers; empty when they matched, null without a check (or when a side failed). */
  noise: diffPayload.or('null'),
})

export const REQUEST_SORT_KEYS = ['created_at', 'method', 'path'] as const

export const listRequestsQuery = type({
  limit: integerQuery(1, 100).default('50'),
  offset: integerQuery(0, Infinity).default('0'),
  // A comma-separated list, or the parameter repeated (query-string.ts).
  'method?': 'string | string[]',
  'path?': storableText,
  'from?': dateTimeQuery,
  'to?': dateTimeQuery,
  'has_diff?': booleanQuery,
  'signature?': signatureIdQuery,
  'template?': storableText,
  sort: type.enumerated(...REQUEST_SORT_KEYS).default('created_at'),
  order: sortOrder.default('desc'),
  '+': 'reject',
})

/**
 * exportRequests' query: listRequests' filters, without its paging and
 * sort; lines come in created_at order (`order`, default oldest first),
 * `limit` of them at most (default all).
 */
export const exportRequestsQuery = listRequestsQuery
  .omit('limit', 'offset', 'sort', 'order')
  .merge({ 'limit?': integerQuery(1, Infinity), order: sortOrder.default('asc'), '+': 'reject' })

/** Newline-delimited JSON, one RequestDetail per line (exportRequests). */
export const NDJSON_CONTENT_TYPE = 'application/x-ndjson'

export const requestEnvelope = type({ data: requestSummary })
export const requestListEnvelope = type({ data: requestSummary.array(), pagination: paginationMeta })
export const requestDetailEnvelope = type({ data: requestDetail })
