import { Elysia } from 'elysia'
import { NotFoundError } from '../../errors/app-error.ts'
import type { ApiContext } from '../api-context.ts'
import { ingestCapture } from '../capture-ingest.ts'
import { paginate } from '../pagination.ts'
import { requestFacts } from '../request-context.ts'
import { gateIdParams, problems, requestIdParams } from '../schemas/common.ts'
import {
  createRequestBody,
  listRequestsQuery,
  requestDetailEnvelope,
  requestEnvelope,
  requestListEnvelope,
} from '../schemas/request-schemas.ts'
import { requireGate } from './gate-routes.ts'
import { jsonBodyParse } from '../json-body.ts'
import { methodList, noQuery, plainQuery, rejectReversedWindow } from '../query-string.ts'

/**
 * The capture operations (docs/reference/api.md "Operations", listRequests to
 * exportRequests).
 */
export function requestRoutes(ctx: ApiContext) {
  return new Elysia({ name: 'request-routes' })
    .get(
      '/gates/:gate_id/requests',
      async ({ params, query }) => {
        rejectReversedWindow(query, 'from must not be after to (both are inclusive bounds of created_at)')
        await requireGate(ctx, params.gate_id)
        const { items, total } = await ctx.requests.list(params.gate_id, { ...query, method: methodList(query.method) })
        return { data: items, pagination: paginate(query.limit, query.offset, items.length, total) }
      },
      {
        transform: plainQuery(['method']),
        params: gateIdParams,
        query: listRequestsQuery,
        response: { 200: requestListEnvelope, ...problems(400, 401, 404, 429, 500) },
        detail: {
          operationId: 'listRequests',
          summary: 'List captured requests of a gate; filters combine with AND',
          description:
            '`method`: a comma-separated list (or the parameter repeated), any of them. `path`: a case-sensitive ' +
            'substring of the path, not anchored; `*` stands for any sequence (`/api/orders` also matches ' +
            '`/api/orders/7`). `from`/`to`: RFC 3339, inclusive. `has_diff`: true or false. `signature`: a ' +
            'signature id (listSignatures), the captures counted under it. `template`: an endpoint template, exactly.',
          tags: ['Requests'],
        },
      },
    )
    .post(
      '/gates/:gate_id/requests',
      async ({ params, body, request, set }) => {
        const summary = await ctx.ingestBacklog.admit(() => ingestCapture(ctx, params.gate_id, body, requestFacts(request).requestId))
        set.status = 201
        return { data: summary }
      },
      {
        ...noQuery,
        parse: jsonBodyParse,
        params: gateIdParams,
        body: createRequestBody,
        response: { 201: requestEnvelope, ...problems(400, 401, 404, 409, 413, 429, 500, 503) },
        detail: {
          operationId: 'createRequest',
          summary: 'Store a capture (sent by proxies); the API redacts it and computes the diff when none is given',
          description:
            'Idempotent on `id`: the same capture sent again under the same gate is answered 201 with the stored ' +
            'summary and stored once; the same id with different content (docs/storage.md "Ingest", capture identity) or ' +
            'under another gate is 409. `SVC_APP_MAX_BODY_SIZE` applies to each decoded body (413 naming the body). ' +
            'A `created_at` more than `SVC_APP_MAX_CLOCK_SKEW` ahead of the server is 400. `live_repeat_response`: ' +
            "live's second answer to the same request (a noise check, docs/insights.md \"Noise\"), redacted like the " +
            "others and compared with live under the gate's diff_config; getRequest shows what differed as `noise`. " +
            'A 500 caused by the ' +
            'capture itself carries `"capture_rejected": true`: sending it again would fail again.',
          tags: ['Requests'],
        },
      },
    )
    .get(
      '/gates/:gate_id/requests/:request_id',
      async ({ params }) => {
        const detail = await ctx.requests.get(params.gate_id, params.request_id)
        if (!detail) {
          await requireGate(ctx, params.gate_id)
          throw new NotFoundError(`no request with id ${params.request_id} in gate ${params.gate_id}`)
        }
        return { data: toDetailJson(detail) }
      },
      {
        ...noQuery,
        params: requestIdParams,
        response: { 200: requestDetailEnvelope, ...problems(400, 401, 404, 429, 500) },
        detail: {
          operationId: 'getRequest',
          summary: 'Get one captured request with both responses and the diff (bodies base64)',
          tags: ['Requests'],
        },
      },
    )
}

type StoredDetail = NonNullable<Awaited<ReturnType<ApiContext['requests']['get']>>>

/**
 * Bodies go out base64, as they came in: lossless for any bytes
 * (docs/reference/api.md "Conventions").
 */
export function toDetailJson(detail: StoredDetail) {
  return {
    ...detail,
    body: Buffer.from(detail.body).toString('base64'),
    live_response: { ...detail.live_response, body: Buffer.from(detail.live_response.body).toString('base64') },
    shadow_response: { ...detail.shadow_response, body: Buffer.from(detail.shadow_response.body).toString('base64') },
    live_repeat_response:
      detail.live_repeat_response === null
        ? null
        : { ...detail.live_repeat_response, body: Buffer.from(detail.live_repeat_response.body).toString('base64') },
  }
}
