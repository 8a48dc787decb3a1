import type postgres from 'postgres'
import type { DiffConfig } from '../diff/diff-config.ts'
import { ConflictError, NotFoundError } from '../errors/app-error.ts'
import { isUuid } from '../net/request-id.ts'
import { isoString, toNumber } from './rows.ts'
import { uniqueViolation } from './sql-errors.ts'

/** What a job does; one kind for now. */
export const JOB_KINDS = ['rediff'] as const
export type JobKind = (typeof JOB_KINDS)[number]

/** A job's life: queued, running, then exactly one of the three ends. */
export const JOB_STATES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const
export type JobState = (typeof JOB_STATES)[number]

/** A job as the API shows it (docs/reference/api.md "Job"). */
export interface Job {
  id: string
  kind: JobKind
  state: JobState
  /** Captures re-diffed so far. */
  done: number
  /** Captures in its window when it was made. */
  total: number
  started_at: string | null
  finished_at: string | null
  /** Why it failed; null otherwise. */
  error: string | null
}

/** What a process needs to run (or resume) a job. */
export interface RunnableJob extends Job {
  gate_id: string
  /** The window, created_at from and to (both included), as PostgreSQL writes them. */
  window_from: string
  window_to: string
  /** The gate's settings when the job was made: every capture is re-diffed under the same ones. */
  diff_config: DiffConfig
  redacted_fields: string[]
  /** The last capture re-diffed (created_at text, id); undefined before the first. */
  cursor: { at: string; id: string } | undefined
  attempts: number
}

interface JobRow {
  id: string
  gate_id: string
  kind: JobKind
  state: JobState
  done: string | number
  total: string | number
  started_at: Date | null
  finished_at: Date | null
  error: string | null
}

interface RunnableRow extends JobRow {
  window_from: string
  window_to: string
  diff_config: DiffConfig
  redacted_fields: string[]
  cursor_at: string | null
  cursor_id: string | null
  attempts: number
}

const COLUMNS = 'id, gate_id, kind, state, done, total, started_at, finished_at, error'
const RUNNABLE = `${COLUMNS}, window_from::text AS window_from, window_to::text AS window_to, diff_config, redacted_fields,
  cursor_at::text AS cursor_at, cursor_id, attempts`

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    done: toNumber(row.done),
    total: toNumber(row.total),
    started_at: row.started_at === null ? null : isoString(row.started_at),
    finished_at: row.finished_at === null ? null : isoString(row.finished_at),
    error: row.error,
  }
}

function toRunnable(row: RunnableRow): RunnableJob {
  return {
    ...toJob(row),
    gate_id: row.gate_id,
    window_from: row.window_from,
    window_to: row.window_to,
    diff_config: row.diff_config,
    redacted_fields: row.redacted_fields,
    cursor: row.cursor_at === null || row.cursor_id === null ? undefined : { at: row.cursor_at, id: row.cursor_id },
    attempts: row.attempts,
  }
}

/**
 * The gate_jobs table (sql/0006_noise_and_jobs.sql, docs/storage.md
 * "Jobs"): what any replica reads to answer for a job, and what the
 * process running one writes as it goes. Ownership is a process id
 * (`owner`) and a heartbeat; a job whose heartbeat is stale is claimed by
 * another process (claimStale).
 */
export interface JobStore {
  /**
   * A queued re-diff of the gate's captures with created_at in [from, to
   * or now], under the gate's current diff settings, owned by `owner`.
   * @throws NotFoundError when the gate does not exist.
   * @throws ConflictError when the gate has a queued or running job.
   */
  /** The job as the API answers for it: what the runner needs it reads again when it takes the job. */
  createRediff(gateId: string, window: { from: string; to?: string }, owner: string): Promise<Job>
  get(gateId: string, jobId: string): Promise<Job | undefined>
  /** Cancels a queued or running job; a finished one is returned as it is. Undefined when absent. */
  cancel(gateId: string, jobId: string): Promise<Job | undefined>
  /** Marks an owned job running (started_at kept from a first run) and counts the attempt; undefined when no longer ours to run. */
  start(jobId: string, owner: string): Promise<RunnableJob | undefined>
  /** Ends an owned job; false when it was no longer ours (cancelled, taken over, deleted). */
  finish(jobId: string, owner: string, state: 'done' | 'failed', error?: string): Promise<boolean>
  /** Renews the heartbeat of the jobs this process runs. */
  heartbeat(owner: string, jobIds: readonly string[]): Promise<void>
  /**
   * Takes over queued or running jobs whose heartbeat is older than
   * `staleMs` (their process died), at most `limit`, each claimed by one
   * process only.
   */
  claimStale(owner: string, staleMs: number, limit: number): Promise<Array<{ id: string; attempts: number }>>
  /** Hands an owned job back (a graceful stop): stale at once, and the attempt not counted. */
  release(jobId: string, owner: string): Promise<void>
  /** Deletes finished jobs older than `ms`. */
  prune(ms: number): Promise<number>
}

export function createJobStore(sql: postgres.Sql): JobStore {
  return {
    async createRediff(gateId, window, owner) {
      if (!isUuid(gateId)) throw new NotFoundError(`no gate with id ${gateId}`)
      try {
        const [row] = await sql<JobRow[]>`
          WITH g AS (SELECT id, diff_config, redacted_fields FROM gates WHERE id = ${gateId} FOR KEY SHARE),
          b AS (SELECT ${window.from}::text::timestamptz AS lo, coalesce(${window.to ?? null}::text::timestamptz, now()) AS hi),
          n AS (SELECT count(*) AS total FROM requests r, g, b WHERE r.gate_id = g.id AND r.created_at >= b.lo AND r.created_at <= b.hi)
          INSERT INTO gate_jobs (id, gate_id, kind, state, window_from, window_to, diff_config, redacted_fields, total, owner, heartbeat_at)
          SELECT ${crypto.randomUUID()}::uuid, g.id, 'rediff', 'queued', b.lo, b.hi, g.diff_config, g.redacted_fields, n.total, ${owner}, now()
          FROM g, b, n
          RETURNING ${sql.unsafe(COLUMNS)}`
        if (!row) throw new NotFoundError(`no gate with id ${gateId}`)
        return toJob(row)
      } catch (error) {
        if (uniqueViolation(error) === 'gate_jobs_active_key') {
          throw new ConflictError('the gate has a re-diff job queued or running; cancel it or wait for it to end (one job per gate at a time)')
        }
        throw error
      }
    },

    async get(gateId, jobId) {
      if (!isUuid(gateId) || !isUuid(jobId)) return undefined
      const [row] = await sql<JobRow[]>`SELECT ${sql.unsafe(COLUMNS)} FROM gate_jobs WHERE id = ${jobId} AND gate_id = ${gateId}`
      return row && toJob(row)
    },

    async cancel(gateId, jobId) {
      if (!isUuid(gateId) || !isUuid(jobId)) return undefined
      const [row] = await sql<JobRow[]>`
        WITH c AS (
          UPDATE gate_jobs SET state = 'cancelled', finished_at = now()
          WHERE id = ${jobId} AND gate_id = ${gateId} AND state IN ('queued', 'running')
          RETURNING ${sql.unsafe(COLUMNS)}
        )
        SELECT * FROM c
        UNION ALL
        SELECT ${sql.unsafe(COLUMNS)} FROM gate_jobs WHERE id = ${jobId} AND gate_id = ${gateId} AND NOT EXISTS (SELECT 1 FROM c)`
      return row && toJob(row)
    },

    async start(jobId, owner) {
      const [row] = await sql<RunnableRow[]>`
        UPDATE gate_jobs SET state = 'running', started_at = coalesce(started_at, now()), attempts = attempts + 1, heartbeat_at = now()
        WHERE id = ${jobId} AND owner = ${owner} AND state IN ('queued', 'running')
        RETURNING ${sql.unsafe(RUNNABLE)}`
      return row && toRunnable(row)
    },

    async finish(jobId, owner, state, error) {
      const rows = await sql`
        UPDATE gate_jobs SET state = ${state}, finished_at = now(), error = ${error ?? null}
        WHERE id = ${jobId} AND owner = ${owner} AND state IN ('queued', 'running')`
      return rows.count > 0
    },

    async heartbeat(owner, jobIds) {
      if (jobIds.length === 0) return
      await sql`
        UPDATE gate_jobs SET heartbeat_at = now()
        WHERE id = ANY(${[...jobIds]}::uuid[]) AND owner = ${owner} AND state IN ('queued', 'running')`
    },

    async claimStale(owner, staleMs, limit) {
      const rows = await sql<{ id: string; attempts: number }[]>`
        UPDATE gate_jobs j SET owner = ${owner}, heartbeat_at = now()
        FROM (
          SELECT id FROM gate_jobs
          WHERE state IN ('queued', 'running') AND (heartbeat_at IS NULL OR heartbeat_at < now() - ${staleMs} * interval '1 millisecond')
          ORDER BY created_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ) AS stale
        WHERE j.id = stale.id
        RETURNING j.id, j.attempts`
      return [...rows]
    },

    async release(jobId, owner) {
      await sql`
        UPDATE gate_jobs SET owner = NULL, heartbeat_at = NULL, attempts = greatest(attempts - 1, 0)
        WHERE id = ${jobId} AND owner = ${owner} AND state IN ('queued', 'running')`
    },

    async prune(ms) {
      const rows = await sql`DELETE FROM gate_jobs WHERE finished_at < now() - ${ms} * interval '1 millisecond'`
      return rows.count
    },
  }
}
