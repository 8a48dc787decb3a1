import type { ApiClient } from './api-client.ts'
import { isAbortError } from './api-error.ts'
import { canonicalHeaderName, decodeBody, diffBodies } from './body.ts'
import type { DecodedBody, DiffBody } from './body.ts'
import { diffHighlights } from './diff-highlight.ts'
import type { DiffHighlights } from './diff-highlight.ts'
import type { Gate, HeaderMap, RequestDetail, ResponsePayload } from './types.ts'

/** Everything the request page shows, decoded and located once. */
export interface RequestView {
  readonly detail: RequestDetail
  /** Undefined when the gate could not be read (the request still shows). */
  readonly gate: Gate | undefined
  readonly requestBody: DecodedBody
  readonly liveBody: DecodedBody
  readonly shadowBody: DecodedBody
  /** `{status, headers, body}` as the diff compared them. */
  readonly liveDoc: DiffDocument
  readonly shadowDoc: DiffDocument
  readonly highlights: DiffHighlights
}

export interface DiffDocument {
  readonly status: number
  readonly headers: Record<string, readonly string[]>
  readonly body: unknown
}

export async function loadRequestView(
  api: ApiClient,
  gateId: string,
  requestId: string,
  signal: AbortSignal,
): Promise<RequestView> {
  const [detail, gate] = await Promise.all([
    api.getRequest(gateId, requestId, signal),
    api.getGate(gateId, signal).catch((error: unknown) => {
      if (isAbortError(error)) throw error
      return undefined
    }),
  ])
  const [requestBody, liveBody, shadowBody] = await Promise.all([
    decodeBody(detail.body, detail.headers),
    decodeBody(detail.live_response.body, detail.live_response.headers),
    decodeBody(detail.shadow_response.body, detail.shadow_response.headers),
  ])
  const [liveDiffBody, shadowDiffBody] = diffBodies(liveBody, shadowBody)
  const liveDoc = diffDocument(detail.live_response, liveDiffBody)
  const shadowDoc = diffDocument(detail.shadow_response, shadowDiffBody)
  const highlights = diffHighlights(liveDoc, detail.diff.content)
  return { detail, gate, requestBody, liveBody, shadowBody, liveDoc, shadowDoc, highlights }
}

/** The document the diff's pointers address (docs/diff.md "What is compared"). */
export function diffDocument(res: ResponsePayload, body: DiffBody): DiffDocument {
  return { status: res.status_code, headers: canonicalHeaders(res.headers), body: body.json ? body.value : body.text }
}

/** Header names in canonical form; values of names that differ only by case are merged. */
export function canonicalHeaders(headers: HeaderMap): Record<string, readonly string[]> {
  const out: Record<string, string[]> = {}
  for (const [name, values] of Object.entries(headers)) {
    const key = canonicalHeaderName(name)
    ;(out[key] ??= []).push(...values)
  }
  return out
}
