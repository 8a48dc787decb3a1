/**
 * What @elysiajs/openapi cannot tell from the route schemas, added to the
 * description it generates: error bodies are RFC 7807 problems served as
 * `application/problem+json` (it labels every schema `application/json`),
 * each error status says what it means (it writes "Response for status
 * 400"), and deleteGate's 204 has no body (it documents only statuses with
 * a schema). With SVC_APP_ALLOWED_HOSTS set every operation can answer
 * 421, which no route declares: it is added then, with the 401's Problem
 * schema; so is 503 on every operation that reads the database (its
 * schema may be behind this build's). A 200 that streams JSON lines is
 * labelled with its own media type. Idempotent: the plugin caches the
 * document it returns.
 */

import { APP_ERROR_CODES } from '../errors/app-error.ts'
import { problemExample, REQUEST_EXAMPLES, responseHeaders } from './openapi-examples.ts'
import { describeParameters, type ParameterObject } from './openapi-parameters.ts'

const PROBLEM = 'application/problem+json'

const ERROR_MEANINGS: Readonly<Record<string, string>> = {
  '400': 'Invalid input: a problem naming the field',
  '401': 'Missing or wrong API key',
  '404': 'No such resource',
  '409': 'Conflicts with an existing resource',
  '413': 'Request body above the limit',
  '421': 'The Host header names a host this API does not answer to (SVC_APP_ALLOWED_HOSTS)',
  '429': 'Rate limited: see Retry-After',
  '500': 'Internal error: the problem carries the request id',
  '503': "The database's schema is behind this build's (run `bun run migrate`): see Retry-After",
}

/** Operations that answer without the database: no 503 for a schema behind. */
const WITHOUT_DATABASE: ReadonlySet<string> = new Set(['getConfig'])

/** Where one operation's error status means more than the generic text. */
const OPERATION_MEANINGS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  createRequest: {
    '409': 'The id exists under another gate, or with different content (a reused id, not a retry)',
    '413': 'A decoded body (named in the detail) above SVC_APP_MAX_BODY_SIZE, or the whole submission above its derived limit',
    '500':
      'Internal error: the problem carries the request id; with "capture_rejected": true the capture itself caused it, and sending it again would fail again',
    '503': "Too many captures are waiting for the database, or its schema is behind this build's (run `bun run migrate`): see Retry-After",
  },
}

/**
 * Operations whose 200 is a stream of JSON lines, not one JSON document:
 * the route's 200 schema is that of one line (exportRequests).
 */
const LINE_STREAMS: Readonly<Record<string, { readonly contentType: string; readonly description: string }>> = {
  exportRequests: { contentType: 'application/x-ndjson', description: 'NDJSON: one RequestDetail per line, each ended by a newline' },
}

interface MediaType {
  schema?: { properties?: Record<string, Record<string, unknown>> }
  example?: unknown
}

interface ResponseObject {
  description?: string
  content?: Record<string, MediaType>
  headers?: Record<string, unknown>
}

interface Operation {
  operationId?: string
  parameters?: ParameterObject[]
  requestBody?: { content?: Record<string, MediaType> }
  responses?: Record<string, ResponseObject>
}

interface Description {
  paths?: Record<string, Record<string, Operation>>
}

export interface RefineOptions {
  /** Document 421 on every operation (SVC_APP_ALLOWED_HOSTS is set). @default false */
  readonly hostChecked?: boolean
}

export function refineApiDescription<T>(document: T, options: RefineOptions = {}): T {
  const paths = (document as Description).paths ?? {}
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const responses = operation.responses
      if (!responses) continue
      for (const [status, response] of Object.entries(responses)) {
        const stream = LINE_STREAMS[operation.operationId ?? '']
        if (status === '200' && stream && response.content?.['application/json'] !== undefined) {
          response.content = { [stream.contentType]: response.content['application/json'] }
          response.description = stream.description
        }
        if (Number(status) < 400) continue
        const meaning = OPERATION_MEANINGS[operation.operationId ?? '']?.[status] ?? ERROR_MEANINGS[status]
        if (meaning && response.description?.startsWith('Response for status')) response.description = meaning
        const json = response.content?.['application/json']
        if (json !== undefined) response.content = { [PROBLEM]: json }
      }
      const problem = responses['401']
      if (options.hostChecked && problem && !responses['421']) responses['421'] = { description: ERROR_MEANINGS['421'], content: problem.content }
      // Every authenticated operation reads the database, but getConfig: a schema behind this build's is a 503 for each.
      if (problem && !responses['503'] && !WITHOUT_DATABASE.has(operation.operationId ?? '')) {
        responses['503'] = { description: ERROR_MEANINGS['503'], content: problem.content }
      }
      if (operation.operationId === 'deleteGate' && !responses['204']) {
        operation.responses = { '204': { description: 'Deleted, with every request captured for it; no body' }, ...responses }
      }
      addDetails(operation)
    }
  }
  return document
}

/** Parameter descriptions and rules, examples and response headers (openapi-parameters.ts, openapi-examples.ts). */
function addDetails(operation: Operation): void {
  const id = operation.operationId ?? ''
  describeParameters(id, operation.parameters ?? [])
  const body = operation.requestBody?.content?.['application/json']
  if (body !== undefined && REQUEST_EXAMPLES[id] !== undefined) body.example = REQUEST_EXAMPLES[id]
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    response.headers = { ...responseHeaders(status), ...response.headers }
    const problem = response.content?.[PROBLEM]
    if (problem === undefined) continue
    // A copy each: the 421 and 503 added above share the 401's content.
    const properties = { ...problem.schema?.properties, type: { ...problem.schema?.properties?.type, ...PROBLEM_TYPE } }
    response.content = { [PROBLEM]: { ...problem, schema: { ...problem.schema, properties }, example: problemExample(status, body !== undefined) } }
  }
}

/** The `type` member of every problem: one of the kinds docs/reference/api.md "Problem types" lists. */
const PROBLEM_TYPE = {
  description: 'The kind of problem (docs/reference/api.md "Problem types")',
  enum: [...APP_ERROR_CODES, 'internal'].map((code) => `/errors/${code}`),
}
