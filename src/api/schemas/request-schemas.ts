import { type } from 'arktype'
import { paginationMeta } from './common.ts'
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

/**
 * RFC 6901 pointers into the compared document `{status, headers, body}`:
 * empty, or `/status`, `/headers` or `/body` and tokens below, in which `~`
 * only starts `~0` or `~1`. A token excludes `/`, so the pattern runs in
 * linear time (with `[^~]` it backtracked exponentially on `////…~`).
 */
const documentPointer = type('string').narrow((text, ctx) =>
  /^(\/(status|headers|body)(\/([^/~]|~[01])*)*)?$/.test(text)
    ? true
    : ctx.mustBe('a JSON Pointer into {status, headers, body} such as /body/items/0'),
)

/** SPEC.md "DiffPayload and PatchOp": `value` present for add and replace, omitted for remove. */
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

const latency = type('number.integer >= 0')
const statusCode = type('0 <= number.integer <= 999')

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
})

export const REQUEST_SORT_KEYS = ['created_at', 'method', 'path'] as const

export const listRequestsQuery = type({
  limit: integerQuery(1, 100).default('50'),
  offset: integerQuery(0, Infinity).default('0'),
  // Elysia hands a comma-separated value over as an array.
  'method?': 'string | string[]',
  'path?': 'string',
  'from?': dateTimeQuery,
  'to?': dateTimeQuery,
  'has_diff?': booleanQuery,
  sort: type.enumerated(...REQUEST_SORT_KEYS).default('created_at'),
  order: sortOrder.default('desc'),
  '+': 'reject',
})

export const requestEnvelope = type({ data: requestSummary })
export const requestListEnvelope = type({ data: requestSummary.array(), pagination: paginationMeta })
export const requestDetailEnvelope = type({ data: requestDetail })
