import {
  ensureCompiled,
  type CaptureOptions,
  type CompiledCaptureOptions,
} from './capture-options.ts'
import type { CapturedRequest, CapturedResponse, HeaderMap } from './capture.ts'
import type { Comparison } from './comparison.ts'
import { compareCaptured } from './compare-responses.ts'
import { stringifyJson } from './json-text.ts'
import { MessageBody, NOT_JSON } from './message-body.ts'
import { setOwn } from './own-property.ts'
import { REDACTED, type Redaction } from './redaction.ts'
import { unparsedBodyView } from './unparsed-body.ts'

export interface CaptureInput {
  request: CapturedRequest
  live: CapturedResponse
  shadow: CapturedResponse
}

/** What to store: the redacted request and responses, and the verdict. */
export interface ProcessedCapture extends CaptureInput {
  comparison: Comparison
}

/**
 * The hot path of every shadowed request, on the API (API mode) and in the
 * proxy and module (standalone mode): one pass that parses each body at
 * most once, redacts the request and both responses (headers and JSON
 * bodies), and compares the redacted responses.
 *
 * Storage (docs/diff.md): a body is returned as it came unless redaction
 * changed it; then it is the redacted JSON as UTF-8 text, no longer
 * content-coded, and the stored headers lose Content-Encoding and
 * Content-Length and say `charset=utf-8`. A body that did not parse as
 * JSON is stored as it is, except when body fields are redacted
 * (unparsed-body.ts, fail closed): JSON read leniently is redacted like any
 * JSON; one that names the whole body, is too deeply nested, too large or
 * impossible to decode (a truncated gzip), or still starts like JSON
 * without parsing, is `[REDACTED]`. A
 * failed upstream (status 0) keeps its error text.
 */
export function processCapture(
  input: CaptureInput,
  options: CaptureOptions | CompiledCaptureOptions,
): ProcessedCapture {
  const compiled = ensureCompiled(options)
  const redaction = compiled.redaction
  const forRedaction = redaction.redactsBody
  const requestBody = new MessageBody(
    input.request.body,
    input.request.headers,
    compiled.limits,
    forRedaction,
  )
  const liveBody = new MessageBody(
    input.live.body,
    input.live.headers,
    compiled.limits,
    forRedaction,
  )
  const shadowBody = new MessageBody(
    input.shadow.body,
    input.shadow.headers,
    compiled.limits,
    forRedaction,
  )
  const request = redactMessage(input.request, requestBody, redaction)
  const live =
    input.live.status === 0
      ? redactHeadersOnly(input.live, redaction)
      : redactMessage(input.live, liveBody, redaction)
  const shadow =
    input.shadow.status === 0
      ? redactHeadersOnly(input.shadow, redaction)
      : redactMessage(input.shadow, shadowBody, redaction)
  // Compared on the already parsed (and redacted) bodies with the headers
  // as received: a stored copy whose body was re-written has lost its
  // Content-Encoding, which must not show up as a difference. Redacted
  // fields are excluded from the comparison either way.
  const comparison = compareCaptured(input.live, liveBody, input.shadow, shadowBody, compiled)
  return { request, live, shadow, comparison }
}

function redactHeadersOnly<T extends { headers: HeaderMap }>(message: T, redaction: Redaction): T {
  const headers = redaction.headers(message.headers)
  return headers === message.headers ? message : { ...message, headers }
}

const encoder = new TextEncoder()
const REDACTED_BYTES = encoder.encode(REDACTED)

function redactMessage<T extends { headers: HeaderMap; body: Uint8Array }>(
  message: T,
  body: MessageBody,
  redaction: Redaction,
): T {
  const headers = redaction.headers(message.headers)
  if (!redaction.redactsBody || message.body.byteLength === 0) {
    return headers === message.headers ? message : { ...message, headers }
  }
  const parsed = body.json()
  if (parsed === NOT_JSON) {
    // Non-JSON bodies are stored as they are (docs/diff.md),
    // unless they are JSON after all or cannot be told from it (fail
    // closed: secrets never survive; unparsed-body.ts).
    const view = unparsedBodyView(body, redaction)
    if (view.kind === 'redacted') return { ...message, headers: rewrittenHeaders(headers), body: REDACTED_BYTES }
    if (view.kind === 'json' && (view.changed || body.repeatsKeys())) {
      return { ...message, headers: rewrittenHeaders(headers), body: encoder.encode(stringifyJson(view.value)) }
    }
    return headers === message.headers ? message : { ...message, headers }
  }
  const { value, changed } = redaction.json(parsed)
  // A key given twice: parsing kept the last, and the first, which redaction never saw, goes with the re-write.
  if (!changed && !body.repeatsKeys()) return headers === message.headers ? message : { ...message, headers }
  body.setJson(value)
  return {
    ...message,
    headers: rewrittenHeaders(headers),
    body: encoder.encode(stringifyJson(value)),
  }
}

/**
 * Headers that describe a body we re-wrote: it is no longer content-coded,
 * its length changed, and it is UTF-8 now.
 */
function rewrittenHeaders(headers: HeaderMap): HeaderMap {
  const out: HeaderMap = {}
  for (const name in headers) {
    const lower = name.toLowerCase()
    if (lower === 'content-encoding' || lower === 'content-length') continue
    const values = headers[name]!
    setOwn(
      out,
      name,
      lower === 'content-type'
        ? values.map((value) => value.replace(/;\s*charset\s*=\s*"?[^";\s]*"?/i, '; charset=utf-8'))
        : values,
    )
  }
  return out
}
