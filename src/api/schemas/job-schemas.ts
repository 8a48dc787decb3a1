import { type } from 'arktype'
import { JOB_KINDS, JOB_STATES } from '../../store/job-store.ts'
import { pathUuid } from './common.ts'
import { dateTimeString } from './fields.ts'

/** startRediff, getJob, cancelJob (docs/insights.md "Re-diff"): their parameters, body and answer. */

export const jobIdParams = type({ gate_id: pathUuid, job_id: pathUuid })

export const startRediffBody = type({
  'from?': dateTimeString,
  'to?': dateTimeString,
  '+': 'reject',
})

export const job = type({
  id: 'string.uuid',
  kind: type.enumerated(...JOB_KINDS),
  state: type.enumerated(...JOB_STATES),
  done: 'number.integer',
  total: 'number.integer',
  started_at: 'string | null',
  finished_at: 'string | null',
  error: 'string | null',
})

export const jobEnvelope = type({ data: job })
