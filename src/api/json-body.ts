import { MAX_COMPARE_DEPTH } from '../diff/index.ts'
import { textNestsDeeperThan } from '../diff/depth-scan.ts'
import { InvalidBodyError } from '../errors/app-error.ts'

/**
 * How deep a request body may nest: a submitted diff carries values of
 * compared bodies, which the diff engine walks to MAX_COMPARE_DEPTH; the
 * envelope around them adds a few levels.
 */
export const MAX_JSON_BODY_DEPTH = MAX_COMPARE_DEPTH + 8

/**
 * The API's JSON body parser (`parse` of the routes that take a body): the
 * nesting is checked on the text before anything parses it, and what it
 * parses to must be an object. A body nested
 * a million levels deep otherwise held the event loop for seconds in
 * JSON.parse and the schema check, then overflowed the stack in the
 * validation error's message: a 500 instead of a 400.
 */
export async function parseJsonBody({ request }: { request: Request }): Promise<unknown> {
  const text = await request.text()
  if (textNestsDeeperThan(text, MAX_JSON_BODY_DEPTH)) {
    throw new InvalidBodyError(`the request body nests deeper than ${MAX_JSON_BODY_DEPTH} levels`)
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw new InvalidBodyError('the request body is not valid JSON')
  }
  // Every body the API takes is an object; arktype's object types let an
  // array through, which updateGate answered 200 and startRediff took.
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidBodyError('the request body must be a JSON object')
  }
  return body
}

/**
 * The `parse` option of every route that takes a JSON body. parseJsonBody
 * always answers, so the `'json'` after it never runs; it is there for
 * @elysiajs/openapi, which documents a body's media type only from named
 * parsers and leaves `requestBody.content` empty for a function, so Swagger
 * UI would show no body at all.
 */
export const jsonBodyParse: [typeof parseJsonBody, 'json'] = [parseJsonBody, 'json']
