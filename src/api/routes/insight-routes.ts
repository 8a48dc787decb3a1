import { Elysia } from 'elysia'
import { NotFoundError } from '../../errors/app-error.ts'
import type { ApiContext } from '../api-context.ts'
import { paginate } from '../pagination.ts'
import { methodList, plainQuery, rejectReversedWindow } from '../query-string.ts'
import { gateIdParams, problems } from '../schemas/common.ts'
import {
  endpointListEnvelope,
  fieldListEnvelope,
  listEndpointsQuery,
  listFieldsQuery,
  listSignaturesQuery,
  signatureListEnvelope,
} from '../schemas/insight-schemas.ts'

const WINDOW =
  '`from`/`to`: RFC 3339; the window is the minutes from the one holding `from` to the one holding `to`, both ' +
  'included (counts come from per-minute and per-hour rollups, never from the captures). Without `from`, the 24 h ' +
  'before `to`; without `to`, no end. Neither: the last 24 h. '

const ENDPOINT_FILTER =
  '`method`: a comma-separated list (or the parameter repeated), any of them. `template`: one endpoint template, exactly. '

/** The insight reads (docs/reference/api.md "Insights"). */
export function insightRoutes(ctx: ApiContext) {
  const gateExists = async (gateId: string) => {
    if (!(await ctx.gateSettings.get(gateId))) throw new NotFoundError(`no gate with id ${gateId}`)
  }
  return new Elysia({ name: 'insight-routes' })
    .get(
      '/gates/:gate_id/endpoints',
      async ({ params, query }) => {
        rejectReversedWindow(query)
        await gateExists(params.gate_id)
        const { items, total } = await ctx.insights.endpoints(params.gate_id, query)
        return { data: items, pagination: paginate(query.limit, query.offset, items.length, total) }
      },
      {
        transform: plainQuery(),
        params: gateIdParams,
        query: listEndpointsQuery,
        response: { 200: endpointListEnvelope, ...problems(400, 401, 404, 429, 500) },
        detail: {
          operationId: 'listEndpoints',
          summary: 'Per endpoint (method and route template): requests, diffs, errors, diff rate, latency percentiles',
          description:
            WINDOW +
            '`diffs`: captures whose comparison found a difference; `errors`: captures whose live or shadow failed; ' +
            '`diff_rate` = diffs / requests. Latency percentiles come from fixed buckets, within 12.5 % of the exact ' +
            'value (exact below 8 ms). Ties of any sort are broken by template, then method, in the same order.',
          tags: ['Insights'],
        },
      },
    )
    .get(
      '/gates/:gate_id/signatures',
      async ({ params, query }) => {
        rejectReversedWindow(query)
        await gateExists(params.gate_id)
        const { items, total } = await ctx.insights.signatures(params.gate_id, { ...query, method: methodList(query.method) })
        return { data: items, pagination: paginate(query.limit, query.offset, items.length, total) }
      },
      {
        transform: plainQuery(['method']),
        params: gateIdParams,
        query: listSignaturesQuery,
        response: { 200: signatureListEnvelope, ...problems(400, 401, 404, 429, 500) },
        detail: {
          operationId: 'listSignatures',
          summary: 'Per diff signature (one kind of difference on one endpoint): count, share, first and last seen, an example',
          description:
            WINDOW +
            ENDPOINT_FILTER +
            '`kind`: diff or error. `share` = count / the captures with a signature of either kind in the window ' +
            'that the same filters keep. `example_request_id`: the latest capture of the signature in the window. ' +
            'Ties are broken by id, in the same order.',
          tags: ['Insights'],
        },
      },
    )
    .get(
      '/gates/:gate_id/fields',
      async ({ params, query }) => {
        rejectReversedWindow(query)
        await gateExists(params.gate_id)
        const { items, total } = await ctx.insights.fields(params.gate_id, { ...query, method: methodList(query.method) })
        return { data: items, pagination: paginate(query.limit, query.offset, items.length, total) }
      },
      {
        transform: plainQuery(['method']),
        params: gateIdParams,
        query: listFieldsQuery,
        response: { 200: fieldListEnvelope, ...problems(400, 401, 404, 429, 500) },
        detail: {
          operationId: 'listFields',
          summary: 'Per endpoint and generalised (op, path) of the diffs: how many captures, and their rate',
          description:
            WINDOW +
            ENDPOINT_FILTER +
            '`count`: captures of the endpoint whose patch holds that operation on that path (array indices written ' +
            '`*`, identifier-like keys `{key}`); `rate` = count / the endpoint\'s requests in the window. ' +
            '`noise_checks`: the endpoint\'s captures whose noise check compared two answers of live; `noise_count`: ' +
            'those whose noise patch holds the field; `noise_rate` = noise_count / noise_checks (null without checks); ' +
            '`classification`: `noise`, `real` or `unknown` (docs/insights.md "Noise"). Ties are broken by method, ' +
            'template, path and op, in the same order.',
          tags: ['Insights'],
        },
      },
    )
}
