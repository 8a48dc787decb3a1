import { Elysia } from 'elysia'
import { InvalidBodyError, NotFoundError } from '../../errors/app-error.ts'
import { parseDuration } from '../../config/duration.ts'
import type { ApiContext } from '../api-context.ts'
import { gateIdParams, problems } from '../schemas/common.ts'
import { createGateBody, gateEnvelope, gateListEnvelope, listGatesQuery, updateGateBody } from '../schemas/gate-schemas.ts'
import { paginate } from '../pagination.ts'
import { jsonBodyParse } from '../json-body.ts'
import { noQuery, plainQuery } from '../query-string.ts'

/**
 * The gate operations (docs/reference/api.md "Operations", listGates to
 * deleteGate).
 */
export function gateRoutes(ctx: ApiContext) {
  return new Elysia({ name: 'gate-routes' })
    .get(
      '/gates',
      async ({ query }) => {
        const { items, total } = await ctx.gates.list(query)
        return { data: items, pagination: paginate(query.limit, query.offset, items.length, total) }
      },
      {
        transform: plainQuery(),
        query: listGatesQuery,
        response: { 200: gateListEnvelope, ...problems(400, 401, 429, 500) },
        detail: { operationId: 'listGates', summary: 'List gates with their 24 h statistics', tags: ['Gates'] },
      },
    )
    .post(
      '/gates',
      async ({ body, set }) => {
        set.status = 201
        return { data: await ctx.gates.create(body) }
      },
      {
        ...noQuery,
        parse: jsonBodyParse,
        body: createGateBody,
        response: { 201: gateEnvelope, ...problems(400, 401, 409, 413, 429, 500) },
        detail: { operationId: 'createGate', summary: 'Create a gate (a live/shadow URL pair)', tags: ['Gates'] },
      },
    )
    .get(
      '/gates/:gate_id',
      async ({ params }) => ({ data: await requireGate(ctx, params.gate_id) }),
      {
        ...noQuery,
        params: gateIdParams,
        response: { 200: gateEnvelope, ...problems(400, 401, 404, 429, 500) },
        detail: { operationId: 'getGate', summary: 'Get one gate with its 24 h statistics', tags: ['Gates'] },
      },
    )
    .patch(
      '/gates/:gate_id',
      async ({ params, body }) => {
        if (typeof body.retention === 'string' && body.retention !== '') {
          const ms = parseDuration(body.retention)!
          if (ms < ctx.config.retentionMs) {
            throw new InvalidBodyError(
              `retention "${body.retention}" is below the global retention floor (${ctx.config.retention})`,
              'retention',
            )
          }
        }
        const updated = await ctx.gates.update(params.gate_id, body)
        ctx.gateSettings.invalidate(params.gate_id)
        if (!updated) throw new NotFoundError(`no gate with id ${params.gate_id}`)
        return { data: updated }
      },
      {
        ...noQuery,
        parse: jsonBodyParse,
        params: gateIdParams,
        body: updateGateBody,
        response: { 200: gateEnvelope, ...problems(400, 401, 404, 409, 413, 429, 500) },
        detail: {
          operationId: 'updateGate',
          summary: 'Update a gate: name, diff_config, redacted_fields, retention (null or "" resets it), endpoints, verdict',
          description:
            '`verdict`: the thresholds of getVerdict for this gate, any of `max_diff_rate` (0 to 1), `max_error_rate` ' +
            '(0 to 1), `max_latency_ratio` (above 0, at most 1000) and `min_requests` (1 or more); it replaces the ' +
            'stored object (`{}` clears it), and a threshold it leaves out takes its built-in default (docs/ci.md).',
          tags: ['Gates'],
        },
      },
    )
    .delete(
      '/gates/:gate_id',
      async ({ params }) => {
        const deleted = await ctx.gates.delete(params.gate_id)
        ctx.gateSettings.invalidate(params.gate_id)
        // Gates that come and go (one per CI run, say) must not grow /metrics for ever.
        ctx.comparisons.removeGate(params.gate_id)
        ctx.noiseChecks.removeGate(params.gate_id)
        if (!deleted) throw new NotFoundError(`no gate with id ${params.gate_id}`)
        return new Response(null, { status: 204 })
      },
      {
        ...noQuery,
        params: gateIdParams,
        response: problems(400, 401, 404, 429, 500),
        detail: {
          operationId: 'deleteGate',
          summary: 'Delete a gate and all its captured requests; 204 without a body',
          tags: ['Gates'],
        },
      },
    )
}

export async function requireGate(ctx: ApiContext, id: string) {
  const gate = await ctx.gates.get(id)
  if (!gate) throw new NotFoundError(`no gate with id ${id}`)
  return gate
}
