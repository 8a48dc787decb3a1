import { Elysia } from 'elysia'
import type { Logger } from '../../log/index.ts'
import type { RequestExport } from '../../store/request-export.ts'
import type { RequestDetail } from '../../store/rows.ts'
import type { ApiContext } from '../api-context.ts'
import { methodList, plainQuery, rejectReversedWindow } from '../query-string.ts'
import { gateIdParams, problems } from '../schemas/common.ts'
import { exportRequestsQuery, NDJSON_CONTENT_TYPE, requestDetail } from '../schemas/request-schemas.ts'
import { requireGate } from './gate-routes.ts'
import { toDetailJson } from './request-routes.ts'

/** exportRequests (docs/storage.md "Export"): a gate's captures as NDJSON, streamed. */
export function exportRoutes(ctx: ApiContext) {
  return new Elysia({ name: 'export-routes' }).get(
    '/gates/:gate_id/requests/export',
    async ({ params, query, request }) => {
      rejectReversedWindow(query, 'from must not be after to (both are inclusive bounds of created_at)')
      await requireGate(ctx, params.gate_id)
      const next = await ctx.exports.open(params.gate_id, { ...query, method: methodList(query.method) })
      // The first page is read before the answer starts, so that its failure is still a problem response.
      const first = await next()
      return new Response(ndjsonStream(first, next, ctx.logger, request.signal), {
        headers: { 'content-type': NDJSON_CONTENT_TYPE, 'cache-control': 'no-store' },
      })
    },
    {
      transform: plainQuery(['method']),
      params: gateIdParams,
      query: exportRequestsQuery,
      // The 200 schema is one line's (openapi-refinements.ts labels it NDJSON); the stream itself is not validated.
      response: { 200: requestDetail, ...problems(400, 401, 404, 429, 500) },
      detail: {
        operationId: 'exportRequests',
        summary: 'Every captured request of a gate matching the filters, as NDJSON: one RequestDetail per line',
        description:
          'The filters of listRequests, combined with AND. Lines are RequestDetail objects (bodies base64), without ' +
          'the `data` envelope, ordered by `created_at` then `id` (`order`, default `asc`); `limit` caps their ' +
          'number (default: all). The answer is streamed as it is read, in pages of the database (keyset on ' +
          '`created_at`, `id`), so its size is unbounded and the API holds one page at a time. Errors found ' +
          'before the first line are problems; a failure after that ends the stream without its last chunk, ' +
          'which a client sees as a broken transfer, never as a shorter export.',
        tags: ['Requests'],
      },
    },
  )
}

/**
 * The pages as NDJSON lines, read as the client takes them (pull): the
 * next page is read only when the lines of the last one have gone out.
 * A failure after the first line can only break the stream; it is logged.
 */
function ndjsonStream(first: RequestDetail[] | undefined, next: RequestExport, logger: Logger, aborted: AbortSignal) {
  const encoder = new TextEncoder()
  let page = first
  let index = 0
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          while (page !== undefined && index >= page.length) {
            page = aborted.aborted ? undefined : await next()
            index = 0
          }
          if (page === undefined) {
            controller.close()
            return
          }
          controller.enqueue(encoder.encode(JSON.stringify(toDetailJson(page[index++]!)) + '\n'))
        } catch (error) {
          logger.error('export failed after it started', { error: String(error) })
          controller.error(error)
        }
      },
    },
    { highWaterMark: 1 },
  )
}
