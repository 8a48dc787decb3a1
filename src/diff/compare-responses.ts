import { bytesEqual, lossyText } from './body-decoding.ts'
import {
  ensureCompiled,
  type CaptureOptions,
  type CompiledCaptureOptions,
} from './capture-options.ts'
import type { CapturedResponse } from './capture.ts'
import { comparisonOf, type Comparison } from './comparison.ts'
import { compareDocuments } from './compare-documents.ts'
import { comparedHeaders } from './headers.ts'
import { stringifyJson } from './json-text.ts'
import { REDACTED } from './redaction.ts'
import { unparsedBodyView } from './unparsed-body.ts'
import { MessageBody, NOT_JSON } from './message-body.ts'
import type { PatchOp } from './patch-op.ts'
import { SKIPPED } from './path-filter.ts'

/**
 * Compares two captured responses: the document `{status, headers, body}` of
 * each (docs/diff.md "What is compared"). Redacted fields are excluded; nothing
 * is redacted for storage here (see processCapture for that).
 */
export function compareResponses(
  live: CapturedResponse,
  shadow: CapturedResponse,
  options: CaptureOptions | CompiledCaptureOptions,
): Comparison {
  // A failed side decides alone: nothing of the other is read.
  const failure = upstreamFailure(live, shadow)
  if (failure !== undefined) return { kind: 'error', cause: failure }
  const compiled = ensureCompiled(options)
  return compareCaptured(
    live,
    new MessageBody(live.body, live.headers, compiled.limits),
    shadow,
    new MessageBody(shadow.body, shadow.headers, compiled.limits),
    compiled,
  )
}

/**
 * The comparison proper, on bodies that may already be parsed (and
 * redacted in place) by processCapture, so nothing is parsed twice.
 */
export function compareCaptured(
  live: CapturedResponse,
  liveBody: MessageBody,
  shadow: CapturedResponse,
  shadowBody: MessageBody,
  compiled: CompiledCaptureOptions,
): Comparison {
  const failure = upstreamFailure(live, shadow)
  if (failure !== undefined) return { kind: 'error', cause: failure }

  const liveDoc: Record<string, unknown> = {
    status: live.status,
    headers: comparedHeaders(live.headers),
  }
  const shadowDoc: Record<string, unknown> = {
    status: shadow.status,
    headers: comparedHeaders(shadow.headers),
  }
  const filter = compiled.diff.filter
  const bodyCompared = filter === undefined || filter.child(filter.root, 'body') !== SKIPPED
  let bodyOp: PatchOp | undefined
  if (bodyCompared) {
    if (liveBody.overLimit || shadowBody.overLimit) {
      // A body above the configured max is not diffed (docs/diff.md
      // "Guards: size, depth, time"); still reported when the bytes differ.
      if (!bytesEqual(liveBody.raw, shadowBody.raw)) {
        bodyOp = {
          op: 'replace',
          path: '/body',
          value: notDiffedMarker(liveBody, shadowBody, compiled),
        }
      }
    } else {
      const liveBytes = liveBody.decoded() ?? liveBody.raw
      const shadowBytes = shadowBody.decoded() ?? shadowBody.raw
      // Equal bytes are an equal body under any DiffConfig: skip parsing.
      if (!bytesEqual(liveBytes, shadowBytes)) {
        const liveJson = liveBody.json()
        const shadowJson = shadowBody.json()
        if (liveJson !== NOT_JSON && shadowJson !== NOT_JSON) {
          liveDoc.body = liveJson
          shadowDoc.body = shadowJson
        } else if (liveBody.text() === undefined || shadowBody.text() === undefined) {
          // Binary (or undecodable) content: bytes decide, the op shows lossy text.
          bodyOp = {
            op: 'replace',
            path: '/body',
            value: shownText(shadowBody, shadowJson, compiled),
          }
        } else if (compiled.redaction.redactsBody) {
          // Text, with body fields redacted: the texts as received decide
          // (two bodies that differ may look alike once redacted, both
          // [REDACTED] say); the patch shows the shadow's as stored.
          if (liveBody.comparisonText() !== shadowBody.comparisonText()) {
            bodyOp = { op: 'replace', path: '/body', value: shownText(shadowBody, shadowJson, compiled) }
          }
        } else {
          // Text: a differing text is one replace at /body.
          liveDoc.body = liveBody.comparisonText()
          shadowDoc.body = shadowBody.comparisonText()
        }
      }
    }
  }
  const ops = compareDocuments(liveDoc, shadowDoc, compiled.diff)
  if (bodyOp !== undefined) ops.push(bodyOp)
  return comparisonOf(ops)
}

/**
 * A body compared as text, because the two are not both JSON, as the diff
 * may show it. When body fields are redacted, a JSON side is its redacted
 * JSON, and a side that did not parse is what processCapture stores of it
 * (unparsed-body.ts): their own text would carry the very fields redaction
 * keeps out of the database and the log, and a whole-text comparison
 * cannot leave them out as the JSON comparison does.
 */
function shownText(body: MessageBody, json: unknown, compiled: CompiledCaptureOptions): string {
  const redaction = compiled.redaction
  if (!redaction.redactsBody) return body.comparisonText()
  if (json !== NOT_JSON) return stringifyJson(redaction.json(json).value)
  const view = unparsedBodyView(body, redaction)
  if (view.kind === 'redacted') return REDACTED
  return view.kind === 'json' ? stringifyJson(view.value) : body.comparisonText()
}

/**
 * Status 0 marks a failed upstream; its body is the error text (docs/diff.md
 * "What is compared").
 */
function upstreamFailure(live: CapturedResponse, shadow: CapturedResponse): string | undefined {
  if (live.status !== 0 && shadow.status !== 0) return undefined
  return failureCause(
    live.status === 0 ? errorText(live.body) : undefined,
    shadow.status === 0 ? errorText(shadow.body) : undefined,
  )
}

/**
 * The cause of an `error` comparison from the error texts of the failed
 * sides (undefined for a side that answered), as compareResponses gives it
 * for responses with status 0 and these texts as bodies. The proxy uses it
 * when the shadow was not even tried, so that nothing is built to compare.
 */
export function failureCause(liveError: string | undefined, shadowError: string | undefined): string {
  const live = liveError === undefined ? undefined : `live failed: ${causeText(liveError)}`
  const shadow = shadowError === undefined ? undefined : `shadow failed: ${causeText(shadowError)}`
  if (live === undefined) return shadow ?? 'no side failed'
  return shadow === undefined ? live : `${live}; ${shadow}`
}

const MAX_CAUSE_LENGTH = 500

function errorText(body: Uint8Array): string {
  // A view only when needed: error texts are short, and each view is an allocation.
  const head = body.byteLength > MAX_CAUSE_LENGTH * 4 ? body.subarray(0, MAX_CAUSE_LENGTH * 4) : body
  return lossyText(head)
}

function causeText(errorText: string): string {
  const text = errorText.trim()
  if (text === '') return 'no response'
  return text.length > MAX_CAUSE_LENGTH ? text.slice(0, MAX_CAUSE_LENGTH) + '…' : text
}

function notDiffedMarker(
  live: MessageBody,
  shadow: MessageBody,
  compiled: CompiledCaptureOptions,
): string {
  return (
    `[body not diffed: live ${live.raw.byteLength} bytes, shadow ${shadow.raw.byteLength} bytes, ` +
    `limit ${compiled.limits.maxBodyBytes} bytes]`
  )
}
