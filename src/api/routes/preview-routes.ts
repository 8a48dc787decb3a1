import { Elysia } from 'elysia'
import { NotFoundError } from '../../errors/app-error.ts'
import { previewDiffConfig } from '../../rediff/preview-diff-config.ts'
import type { ApiContext } from '../api-context.ts'
import { captureWindow } from '../capture-window.ts'
import { jsonBodyParse } from '../json-body.ts'
import { noQuery } from '../query-string.ts'
import { gateIdParams, problems } from '../schemas/common.ts'
import {
  DEFAULT_PREVIEW_LIMIT,
  diffConfigPreviewEnvelope,
  MAX_PREVIEW_LIMIT,
  previewDiffConfigBody,
} from '../schemas/preview-schemas.ts'

/** previewDiffConfig (docs/insights.md "Preview"). */
export function previewRoutes(ctx: ApiContext) {
  return new Elysia({ name: 'preview-routes' }).post(
    '/gates/:gate_id/diff-config/preview',
    async ({ params, body }) => {
      const window = captureWindow(body)
      const gate = await ctx.gateSettings.get(params.gate_id)
      if (!gate) throw new NotFoundError(`no gate with id ${params.gate_id}`)
      const preview = await ctx.previews.run(gate.id, (conn) =>
        previewDiffConfig(conn, { gate, diffConfig: body.diff_config, ...window, limit: body.limit ?? DEFAULT_PREVIEW_LIMIT }),
      )
      return { data: preview }
    },
    {
      ...noQuery,
      parse: jsonBodyParse,
      params: gateIdParams,
      body: previewDiffConfigBody,
      response: { 200: diffConfigPreviewEnvelope, ...problems(400, 401, 404, 409, 413, 429, 500) },
      detail: {
        operationId: 'previewDiffConfig',
        summary: 'What a candidate diff_config would silence and surface, on the most recent stored captures; changes nothing',
        description:
          '`diff_config`: the four fields, all required, as updateGate takes them. `from`/`to`: RFC 3339, both ' +
          'included (created_at); without `from`, the 24 h before `to` (or now); without `to`, no end. `limit`: ' +
          `1 to ${MAX_PREVIEW_LIMIT.toLocaleString('en')}, default ${DEFAULT_PREVIEW_LIMIT.toLocaleString('en')}: the most recent captures in the window ` +
          're-diffed with the candidate. `diffs_before`: those whose stored comparison found a difference; ' +
          '`diffs_after`: under the candidate; `silenced`: a difference before, none after; `surfaced`: the reverse ' +
          '(a failed side is neither). `signatures`: per diff signature, its captures before and after (the 100 ' +
          'with most on either side). `examples`: up to 10 request ids of each, the most recent first. One ' +
          'preview per gate at a time: another while one runs is a 409 (docs/insights.md "Preview").',
        tags: ['Insights'],
      },
    },
  )
}
