import type { Comparison, PatchOp } from '../diff/index.ts'
import { ensureCompiled, processCapture } from '../diff/index.ts'
import { NotFoundError } from '../errors/app-error.ts'
import { EndpointTemplates } from '../insights/index.ts'
import { failedSideOf } from '../metrics/index.ts'
import type { GateSettings } from '../store/rows.ts'
import { isRowRefusal } from '../store/sql-errors.ts'
import type { ApiContext } from './api-context.ts'
import { checkCaptureLimits } from './capture-limits.ts'
import { CaptureRejectedError } from './capture-rejected.ts'
import { noiseCheckOf, type NoiseCheck } from './noise-check.ts'
import type { createRequestBody } from './schemas/request-schemas.ts'

type CreateRequestBody = typeof createRequestBody.infer

/**
 * createRequest (docs/reference/api.md "createRequest"): check each body's size
 * and the timestamps (capture-limits.ts), decode the base64 bodies, redact with
 * the default and per-gate fields, compute the diff with the gate's diff_config
 * when the submission carries none, count the result, and store it. A submitted
 * diff is redacted too: its operations on redacted fields are dropped and
 * secrets inside its values replaced, as any client may send one. The id is the
 * body's, else the X-Request-ID (already validated), else generated. A
 * `live_repeat_response` is a noise check: compared with live under the same
 * settings, redacted, stored with its noise patch and counted in
 * svc_noise_checks_total (noise-check.ts).
 *
 * An unexpected failure caused by this capture (an exception while
 * redacting or diffing it, the database refusing its row) is a
 * CaptureRejectedError: still a 500, but one that says it would fail again.
 */
export async function ingestCapture(ctx: ApiContext, gateId: string, body: CreateRequestBody, requestId: string) {
  checkCaptureLimits(body, ctx.config)
  const settings = await ctx.gateSettings.get(gateId)
  if (!settings) throw new NotFoundError(`no gate with id ${gateId}`)

  const options = ensureCompiled({ diff: settings.diff_config, redactedFields: settings.redacted_fields })
  let processed: ReturnType<typeof processCapture>
  let comparison: Comparison
  let noise: NoiseCheck | undefined
  try {
    const live = { status: body.live_response.status_code, headers: body.live_response.headers, body: decode(body.live_response.body) }
    const repeat = body.live_repeat_response
    noise = repeat && noiseCheckOf(live, { status: repeat.status_code, headers: repeat.headers, body: decode(repeat.body) }, options)
    processed = processCapture(
      {
        request: { headers: body.headers, body: decode(body.body) },
        live,
        shadow: { status: body.shadow_response.status_code, headers: body.shadow_response.headers, body: decode(body.shadow_response.body) },
      },
      options,
    )
    const submitted = body.diff ? options.redaction.patchOps(body.diff.content as PatchOp[]) : undefined
    // A failed side is an error whatever a submitted diff says (docs/diff.md
    // "What is compared").
    comparison =
      submitted === undefined || processed.comparison.kind === 'error'
        ? processed.comparison
        : submitted.length > 0 ? { kind: 'diff', ops: submitted } : { kind: 'match' }
  } catch (error) {
    throw new CaptureRejectedError(error)
  }
  const ops = comparison.kind === 'diff' ? comparison.ops : []

  let stored: Awaited<ReturnType<ApiContext['requests']['insert']>>
  try {
    stored = await ctx.requests.insert(gateId, {
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
      template: templatesOf(settings).templateOf(body.path),
      ...(noise === undefined || body.live_repeat_response === undefined
        ? {}
        : { noise_check: { repeat: responseRow(body.live_repeat_response, noise.repeat), result: noise.result, ops: noise.ops } }),
    })
  } catch (error) {
    throw isRowRefusal(error) ? new CaptureRejectedError(error) : error
  }
  if (stored.created) {
    const comparisons = ctx.comparisons.forGate(gateId)
    if (comparison.kind === 'error') comparisons.failed(failedSideOf(body.live_response.status_code, body.shadow_response.status_code))
    else comparisons.record(comparison.kind, ops.length)
    if (noise !== undefined) ctx.noiseChecks.forGate(gateId).record(noise.result)
  }
  return stored.summary
}

/** Each gate's explicit templates, parsed once per settings object the cache hands out. */
const parsedTemplates = new WeakMap<GateSettings, EndpointTemplates>()

function templatesOf(settings: GateSettings): EndpointTemplates {
  let templates = parsedTemplates.get(settings)
  if (templates === undefined) {
    try {
      templates = EndpointTemplates.parse(settings.endpoints)
    } catch {
      // Checked when written (updateGate); a list that no longer parses must not fail every capture.
      templates = EndpointTemplates.NONE
    }
    parsedTemplates.set(settings, templates)
  }
  return templates
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
