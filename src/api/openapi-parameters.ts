/**
 * What the route schemas cannot tell @elysiajs/openapi about parameters:
 * what each means, and, for the query parameters the routes read from
 * text, the type and bounds they are checked against (it documents them as
 * free strings, so Swagger UI offered a text box with no rule). The rules
 * are docs/reference/api.md's; a parameter keeps a description or a schema
 * constraint the route already gave.
 */

interface ParameterDoc {
  readonly description: string
  /** Replaces a schema that says only `type: string`. */
  readonly schema?: Readonly<Record<string, unknown>>
}

const DATE_TIME = { type: 'string', format: 'date-time' }
const RATE = { type: 'number', minimum: 0, maximum: 1 }

/** By name, for every operation that has the parameter. */
const PARAMETERS: Readonly<Record<string, ParameterDoc>> = {
  gate_id: { description: 'The gate (a UUID, either case)' },
  request_id: { description: 'The capture (a UUID, either case)' },
  job_id: { description: 'The job (a UUID, either case)' },
  limit: { description: 'Items per page, 1 to 100', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
  offset: { description: 'Items to skip, 0 or more', schema: { type: 'integer', minimum: 0, default: 0 } },
  sort: { description: 'The field the items are ordered by' },
  order: { description: 'Ascending or descending' },
  from: { description: 'RFC 3339: the window starts here (included); after `to` is a 400', schema: DATE_TIME },
  to: { description: 'RFC 3339: the window ends here (included)', schema: DATE_TIME },
  method: { description: 'Methods, comma-separated or the parameter repeated, any of them (case-insensitive)' },
  path: { description: 'A case-sensitive, unanchored substring of the path; `*` stands for any sequence' },
  has_diff: { description: 'Only captures with a difference or a failed side (`true`), or only matches (`false`)', schema: { type: 'boolean' } },
  signature: { description: 'A signature id (16 lower-case hex characters): the captures counted under it', schema: { type: 'string', pattern: '^[0-9a-f]{16}$' } },
  template: { description: 'An endpoint template, exactly (`/v2/products/{id}`)' },
  kind: { description: '`diff` (a difference) or `error` (a side failed)' },
  name: { description: 'A case-insensitive substring of the name, literally (`%` and `_` are characters)' },
  live_url: { description: 'A case-insensitive substring of the live URL, literally' },
  shadow_url: { description: 'A case-insensitive substring of the shadow URL, literally' },
  ignore_noise: { description: 'Leave diffs that touch only fields classified noise out of diff_rate', schema: { type: 'boolean', default: true } },
  max_diff_rate: { description: 'Diffs / requests at most this (0 to 1); default the gate\'s, then 0.01', schema: RATE },
  max_error_rate: { description: 'Failed shadows / requests at most this (0 to 1); default the gate\'s, then 0.01', schema: RATE },
  max_latency_ratio: {
    description: 'Shadow p95 / live p95 at most this, per endpoint (above 0, at most 1000); default the gate\'s, then 1.5',
    schema: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
  },
  min_requests: {
    description: 'Fewer requests make the verdict inconclusive (1 to 1,000,000,000); default the gate\'s, then 100',
    schema: { type: 'integer', minimum: 1, maximum: 1_000_000_000 },
  },
}

/** An insight read's window: whole minutes, the last 24 hours by default. */
const INSIGHT_WINDOW: Readonly<Record<string, ParameterDoc>> = {
  from: { description: 'RFC 3339: counts start at the minute holding it; default 24 hours before `to`', schema: DATE_TIME },
  to: { description: 'RFC 3339: counts end with the minute holding it; default now', schema: DATE_TIME },
}

/** Where one operation's parameter has another rule. */
const OPERATION_PARAMETERS: Readonly<Record<string, Readonly<Record<string, ParameterDoc>>>> = {
  exportRequests: {
    limit: { description: 'At most this many captures (1 or more); default all', schema: { type: 'integer', minimum: 1 } },
    order: { description: 'Oldest first (`asc`, the default) or newest first' },
  },
  listEndpoints: INSIGHT_WINDOW,
  listSignatures: INSIGHT_WINDOW,
  listFields: INSIGHT_WINDOW,
  listSuggestions: INSIGHT_WINDOW,
  getVerdict: {
    from: { description: 'RFC 3339: counts start at the minute holding it; default one hour before `to`', schema: DATE_TIME },
    to: INSIGHT_WINDOW.to!,
  },
}

export interface ParameterObject {
  name: string
  in: string
  description?: string
  schema?: Record<string, unknown>
}

/** Describes `parameters` of the operation `operationId` in place. */
export function describeParameters(operationId: string, parameters: ParameterObject[]): void {
  for (const parameter of parameters) {
    const doc = OPERATION_PARAMETERS[operationId]?.[parameter.name] ?? PARAMETERS[parameter.name]
    if (doc === undefined) continue
    parameter.description ??= doc.description
    if (doc.schema !== undefined && isPlainString(parameter.schema)) {
      const fallback = parameter.schema?.default
      parameter.schema = { ...doc.schema, ...(fallback === undefined || 'default' in doc.schema ? {} : { default: fallback }) }
    }
  }
}

/** A schema that says `type: string` and nothing else a reader could use (a default aside). */
function isPlainString(schema: Record<string, unknown> | undefined): boolean {
  if (schema === undefined || schema.type !== 'string') return false
  return Object.keys(schema).every((key) => key === 'type' || key === 'default')
}
