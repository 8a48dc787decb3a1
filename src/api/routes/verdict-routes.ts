import { Elysia } from 'elysia'
import { InvalidParameterError } from '../../errors/app-error.ts'
import { DEFAULT_THRESHOLDS, evaluateVerdict, resolveThresholds, THRESHOLD_NAMES } from '../../verdict/index.ts'
import type { ApiContext } from '../api-context.ts'
import { plainQuery } from '../query-string.ts'
import { gateIdParams, problems } from '../schemas/common.ts'
import { verdictEnvelope, verdictQuery } from '../schemas/verdict-schemas.ts'
import { readVerdictFacts } from '../verdict-facts.ts'
import { requireGate } from './gate-routes.ts'

/** The window when the query gives none: the last hour. */
const DEFAULT_WINDOW_MS = 3_600_000

const DEFAULTS = THRESHOLD_NAMES.map((name) => `\`${name}\` ${DEFAULT_THRESHOLDS[name]}`).join(', ')

/** getVerdict (docs/ci.md): can the gate's shadow ship? */
export function verdictRoutes(ctx: ApiContext) {
  return new Elysia({ name: 'verdict-routes' }).get(
    '/gates/:gate_id/verdict',
    async ({ params, query }) => {
      const to = query.to ?? new Date()
      const from = query.from ?? new Date(to.getTime() - DEFAULT_WINDOW_MS)
      if (from > to) throw new InvalidParameterError('from must not be after to', 'from')
      const gate = await requireGate(ctx, params.gate_id)
      const overrides = Object.fromEntries(THRESHOLD_NAMES.filter((name) => query[name] !== undefined).map((name) => [name, query[name]]))
      const thresholds = resolveThresholds(overrides, gate.verdict)
      const ignoreNoise = query.ignore_noise ?? true
      const facts = await readVerdictFacts(ctx.insights, params.gate_id, { from, to }, ignoreNoise)
      const outcome = evaluateVerdict(facts, thresholds, { ignoreNoise })
      return {
        data: {
          verdict: outcome.verdict,
          checks: [...outcome.checks],
          window: { from: from.toISOString(), to: to.toISOString() },
          requests: outcome.requests,
          live_failures: outcome.liveFailures,
          ignore_noise: ignoreNoise,
          noise_ignored: outcome.noiseIgnored,
        },
      }
    },
    {
      transform: plainQuery(),
      params: gateIdParams,
      query: verdictQuery,
      response: { 200: verdictEnvelope, ...problems(400, 401, 404, 429, 500) },
      detail: {
        operationId: 'getVerdict',
        summary: 'Whether the shadow can ship: pass, fail or inconclusive, with the checks behind it',
        description:
          '`from`/`to`: RFC 3339; default the hour before `to`, `to` default now. Counts come from the insight ' +
          'rollups of the whole minutes from the one holding `from` to the one holding `to`. `requests` counts the ' +
          'captures but those whose live alone failed (status 0 on live, the shadow answered: nothing to compare ' +
          'with), which `live_failures` counts apart. Checks: `requests` ' +
          '(at least `min_requests`, else the verdict is `inconclusive`), `diff_rate` (diffs / requests at most ' +
          '`max_diff_rate`), `error_rate` (failed shadows, status 0, / requests at most `max_error_rate`), and per ' +
          'endpoint (`scope` "METHOD template") `latency_ratio` (shadow p95 / live p95, each at least 5 ms, at most ' +
          '`max_latency_ratio`). A threshold in the query wins over the gate\'s `verdict` field, which wins over ' +
          `the built-in default (${DEFAULTS}). \`ignore_noise\` (default true): a capture whose difference touches ` +
          'only fields that listFields classifies `noise` for its endpoint in the window is left out of the diffs; ' +
          '`noise_ignored` says how many were (0 when `ignore_noise` is false).',
        tags: ['Insights'],
      },
    },
  )
}
