import type { Comparison, PatchOp } from '../diff/index.ts'
import { ensureCompiled, processCapture } from '../diff/index.ts'
import { NotFoundError } from '../errors/app-error.ts'
import type { ApiContext } from './api-context.ts'
import type { createRequestBody } from './schemas/request-schemas.ts'

type CreateRequestBody = typeof createRequestBody.infer

/**
 * createRequest (SPEC.md): decode the base64 bodies, redact with the
 * default and per-gate fields, compute the diff with the gate's diff_config
 * when the submission carries none, count the result, and store it. A
 * submitted diff is redacted too: its operations on redacted fields are
 * dropped and secrets inside its values replaced, as any client may send
 * one. The id is the body's, else the X-Request-ID (already validated),
 * else generated.
 */
export async function ingestCapture(ctx: ApiContext, gateId: string, body: CreateRequestBody, requestId: string) {
  const settings = await ctx.gateSettings.get(gateId)
  if (!settings) throw new NotFoundError(`no gate with id ${gateId}`)

  const options = ensureCompiled({ diff: settings.diff_config, redactedFields: settings.redacted_fields })
  const processed = processCapture(
    {
      request: { headers: body.headers, body: decode(body.body) },
      live: { status: body.live_response.status_code, headers: body.live_response.headers, body: decode(body.live_response.body) },
      shadow: { status: body.shadow_response.status_code, headers: body.shadow_response.headers, body: decode(body.shadow_response.body) },
    },
    options,
  )
  const submitted = body.diff ? options.redaction.patchOps(body.diff.content as PatchOp[]) : undefined
  // A failed side is an error whatever a submitted diff says (DESIGN.md "Diff semantics").
  const comparison: Comparison =
    submitted === undefined || processed.comparison.kind === 'error'
      ? processed.comparison
      : submitted.length > 0 ? { kind: 'diff', ops: submitted } : { kind: 'match' }
  const ops = comparison.kind === 'diff' ? comparison.ops : []

  const { summary, created } = await ctx.requests.insert(gateId, {
    id: body.id ?? requestId,
    method: body.method.toUpperCase(),
    path: body.path,
    raw_query: body.raw_query ?? '',
    headers: processed.request.headers,
    body: processed.request.body,
    created_at: body.created_at,
    live_response: responseRow(body.live_response, processed.live),
    shadow_response: responseRow(body.shadow_response, processed.shadow),
    has_diff: comparison.kind !== 'match',
    diff: ops,
  })
  if (created) ctx.comparisons.forGate(gateId).record(comparison.kind, ops.length)
  return summary
}

function decode(base64: string): Uint8Array {
  return Buffer.from(base64, 'base64')
}

function responseRow(
  submitted: CreateRequestBody['live_response'],
  processed: { status: number; headers: Record<string, string[]>; body: Uint8Array },
) {
  return {
    id: submitted.id ?? crypto.randomUUID(),
    status_code: submitted.status_code,
    headers: processed.headers,
    body: processed.body,
    latency_ms: submitted.latency_ms,
    created_at: submitted.created_at,
  }
}
