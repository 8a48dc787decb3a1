import { Elysia } from 'elysia'
import { NotFoundError } from '../../errors/app-error.ts'
import type { ApiContext } from '../api-context.ts'
import { paginate } from '../pagination.ts'
import { plainQuery, rejectReversedWindow } from '../query-string.ts'
import { gateIdParams, problems } from '../schemas/common.ts'
import { listSuggestionsQuery, suggestionListEnvelope } from '../schemas/suggestion-schemas.ts'

/** listSuggestions (docs/insights.md "Suggestions"). */
export function suggestionRoutes(ctx: ApiContext) {
  return new Elysia({ name: 'suggestion-routes' }).get(
    '/gates/:gate_id/suggestions',
    async ({ params, query }) => {
      rejectReversedWindow(query)
      const gate = await ctx.gateSettings.get(params.gate_id)
      if (!gate) throw new NotFoundError(`no gate with id ${params.gate_id}`)
      const all = await ctx.suggestions.suggestions(gate, query)
      const items = all.slice(query.offset, query.offset + query.limit)
      return { data: items, pagination: paginate(query.limit, query.offset, items.length, all.length) }
    },
    {
      transform: plainQuery(),
      params: gateIdParams,
      query: listSuggestionsQuery,
      response: { 200: suggestionListEnvelope, ...problems(400, 401, 404, 429, 500) },
      detail: {
        operationId: 'listSuggestions',
        summary: 'Proposed ignored_fields entries: fields that are noise, or volatile (timestamps, ids, tokens)',
        description:
          '`from`/`to` as in listFields (default the last 24 h). Each entry: `field` in the notation of ' +
          '`ignored_fields`, wildcards included, ready to paste; `reason` `noise` (the field differs between live and ' +
          "its repeat about as often as between live and the shadow: listFields' classification) or `volatile` (no " +
          'noise checks on its endpoint, it differs in nearly every capture and its values look like timestamps, UUIDs ' +
          'or random tokens); `evidence` the counts and rates behind it, summed over `endpoints`, the endpoints whose ' +
          'counts support it (the entry, once saved, applies to every endpoint). Never a field classified `real` on ' +
          "any endpoint, one the gate's diff_config already leaves out, or a whole body, status or header map. Noise " +
          'first, then by count (docs/insights.md "Suggestions").',
        tags: ['Insights'],
      },
    },
  )
}
