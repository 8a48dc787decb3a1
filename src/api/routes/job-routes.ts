import { Elysia } from 'elysia'
import { NotFoundError } from '../../errors/app-error.ts'
import type { ApiContext } from '../api-context.ts'
import { captureWindow } from '../capture-window.ts'
import { jsonBodyParse } from '../json-body.ts'
import { noQuery } from '../query-string.ts'
import { gateIdParams, problems } from '../schemas/common.ts'
import { jobEnvelope, jobIdParams, startRediffBody } from '../schemas/job-schemas.ts'
import { requireGate } from './gate-routes.ts'

const JOB =
  '`state`: `queued`, `running`, then `done`, `failed` (with `error`) or `cancelled`; `done` of `total`: captures ' +
  're-diffed of those in the window when the job was made. '

/** Re-diff jobs (docs/insights.md "Re-diff"). */
export function jobRoutes(ctx: ApiContext) {
  /** The job as an answer, or the 404 that says which is missing: the gate or its job. */
  const jobAnswer = async <J>(params: { gate_id: string; job_id: string }, job: J | undefined) => {
    if (!job) {
      await requireGate(ctx, params.gate_id)
      throw new NotFoundError(`no job with id ${params.job_id} in gate ${params.gate_id}`)
    }
    return { data: job }
  }
  return new Elysia({ name: 'job-routes' })
    .post(
      '/gates/:gate_id/rediff',
      async ({ params, body, set }) => {
        const window = captureWindow(body)
        const job = await ctx.jobs.create(params.gate_id, window)
        set.status = 202
        return { data: job }
      },
      {
        ...noQuery,
        parse: jsonBodyParse,
        params: gateIdParams,
        body: startRediffBody,
        response: { 202: jobEnvelope, ...problems(400, 401, 404, 409, 413, 429, 500) },
        detail: {
          operationId: 'startRediff',
          summary: "Re-diff the gate's stored captures under its current diff_config, in the background: answers 202 with the job",
          description:
            '`from`/`to`: RFC 3339, both included (created_at); without `from`, the 24 h before `to` (or now); ' +
            'without `to`, until now. Recomputes each capture\'s diff, `has_diff`, signature and noise check and ' +
            'every rollup they count in (24 h stats, insights), exactly, chunk by chunk, while ingest goes on; ' +
            'the diff settings are the gate\'s when the job is made. One job per gate at a time: another while one ' +
            'is queued or running is a 409. Follow it with getJob; cancelJob stops it; deleting the gate cancels ' +
            'it. ' +
            JOB,
          tags: ['Jobs'],
        },
      },
    )
    .get(
      '/gates/:gate_id/jobs/:job_id',
      async ({ params }) => jobAnswer(params, await ctx.jobs.store.get(params.gate_id, params.job_id)),
      {
        ...noQuery,
        params: jobIdParams,
        response: { 200: jobEnvelope, ...problems(400, 401, 404, 429, 500) },
        detail: {
          operationId: 'getJob',
          summary: 'A job of the gate and its progress',
          description: JOB + 'Any replica answers: jobs are stored. Finished jobs are kept 7 days.',
          tags: ['Jobs'],
        },
      },
    )
    .delete(
      '/gates/:gate_id/jobs/:job_id',
      async ({ params }) => jobAnswer(params, await ctx.jobs.store.cancel(params.gate_id, params.job_id)),
      {
        ...noQuery,
        params: jobIdParams,
        response: { 200: jobEnvelope, ...problems(400, 401, 404, 429, 500) },
        detail: {
          operationId: 'cancelJob',
          summary: 'Cancel a queued or running job; a finished one is answered as it is',
          description:
            'The job stops after the chunk it is writing: what it re-diffed stays, and every count stays exact. ' + JOB,
          tags: ['Jobs'],
        },
      },
    )
}
