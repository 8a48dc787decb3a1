import { hostname } from 'node:os'
import type postgres from 'postgres'
import { compileCaptureOptions } from '../diff/index.ts'
import type { Logger } from '../log/index.ts'
import { prefetched, scanCaptures } from '../store/capture-scan.ts'
import { createInsightCatalog, type InsightCatalog } from '../store/insight-catalog.ts'
import { createJobStore, type Job, type JobStore } from '../store/job-store.ts'
import { applyRediffChunk, type RediffItem } from '../store/rediff-chunk.ts'
import { withDeadlockRetry } from '../store/sql-errors.ts'
import { rediffItemOf } from './rediff-item.ts'
import { TimeSlicer } from './time-slicer.ts'

/** How jobs are run and taken over (docs/storage.md "Jobs"); the defaults are the documented values. */
export interface RediffJobsOptions {
  readonly sql: postgres.Sql
  readonly logger: Logger
  /** The signature caps, shared with ingest's when given. @default a catalog of its own */
  readonly catalog?: InsightCatalog
  /** This process's name in gate_jobs.owner. @default host, pid and a random suffix */
  readonly owner?: string
  /** How often the jobs this process runs renew their heartbeat. @default 2000 */
  readonly heartbeatMs?: number
  /** A queued or running job whose heartbeat is older is taken over. @default 15000 */
  readonly staleMs?: number
  /** How often this process looks for jobs to take over. @default 5000 */
  readonly sweepMs?: number
  /** Runs a job may start; one interrupted that often is failed instead of resumed. @default 3 */
  readonly maxAttempts?: number
  /** Captures per chunk (one transaction). @default 500 */
  readonly chunkRows?: number
  /** Finished jobs are deleted after this long. @default 7 days */
  readonly keepFinishedMs?: number
}

/**
 * Re-diff jobs (docs/insights.md "Re-diff"): made by any replica, run in
 * the background by the process that made them, chunk by chunk (each
 * chunk one transaction that moves the job's cursor), and taken over by
 * whichever process sees its heartbeat go stale: a job interrupted by a
 * crash or a kill is resumed after its last chunk, or failed after
 * `maxAttempts` runs, never left running. A graceful stop hands its jobs
 * back at once. Cancelling (or deleting the gate) stops a job at its next
 * chunk.
 */
export class RediffJobs {
  readonly store: JobStore
  readonly owner: string
  private readonly catalog: InsightCatalog
  private readonly running = new Map<string, Promise<void>>()
  private readonly timers: ReturnType<typeof setInterval>[] = []
  private stopping = false
  /** A failing sweep or heartbeat (the database down) is logged once until it works again. */
  private failing = false
  private sweeping: Promise<void> | undefined

  constructor(private readonly options: RediffJobsOptions) {
    this.store = createJobStore(options.sql)
    this.catalog = options.catalog ?? createInsightCatalog(options.sql)
    this.owner = options.owner ?? `${hostname()}/${process.pid}/${crypto.randomUUID().slice(0, 8)}`
  }

  /** Starts the heartbeat and the sweeps for jobs to take over (one right away: jobs a restart left behind). */
  start(): void {
    const heartbeat = setInterval(() => void this.heartbeat(), this.options.heartbeatMs ?? 2000)
    const sweep = setInterval(() => void this.sweep(), this.options.sweepMs ?? 5000)
    heartbeat.unref()
    sweep.unref()
    this.timers.push(heartbeat, sweep)
    void this.sweep()
  }

  /** Makes a queued re-diff of the gate's window and starts it here. */
  async create(gateId: string, window: { from: string; to?: string }): Promise<Job> {
    const job = await this.store.createRediff(gateId, window, this.owner)
    this.launch(job.id)
    return job
  }

  /** The jobs running in this process now. */
  get active(): number {
    return this.running.size
  }

  /** Stops taking jobs, lets each running one finish its chunk, and hands them back for another process to resume. */
  async stop(): Promise<void> {
    this.stopping = true
    for (const timer of this.timers) clearInterval(timer)
    await this.sweeping
    await Promise.all(this.running.values())
  }

  /** Resolves when no job runs here (tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running.values())
  }

  private launch(jobId: string): void {
    if (this.stopping || this.running.has(jobId)) return
    const run = this.run(jobId).finally(() => this.running.delete(jobId))
    this.running.set(jobId, run)
  }

  private async heartbeat(): Promise<void> {
    try {
      await this.store.heartbeat(this.owner, [...this.running.keys()])
    } catch (error) {
      this.failed(error)
    }
  }

  private sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce().finally(() => (this.sweeping = undefined))
    return this.sweeping
  }

  private async sweepOnce(): Promise<void> {
    if (this.stopping) return
    const maxAttempts = this.options.maxAttempts ?? 3
    try {
      for (const { id, attempts } of await this.store.claimStale(this.owner, this.options.staleMs ?? 15_000, 10)) {
        if (attempts >= maxAttempts) {
          await this.store.finish(id, this.owner, 'failed', `interrupted ${attempts} times (the API stopped while it ran); not resumed again`)
          this.options.logger.warn('rediff job failed', { job: id, error: 'interrupted too often', attempts })
        } else {
          this.launch(id)
        }
      }
      await this.store.prune(this.options.keepFinishedMs ?? 7 * 24 * 3_600_000)
      this.failing = false
    } catch (error) {
      this.failed(error)
    }
  }

  private failed(error: unknown): void {
    if (this.failing) return
    this.failing = true
    this.options.logger.warn('rediff jobs bookkeeping failed; retrying', { error })
  }

  private async run(jobId: string): Promise<void> {
    const { logger, sql } = this.options
    let job: Awaited<ReturnType<JobStore['start']>>
    try {
      job = await this.store.start(jobId, this.owner)
    } catch (error) {
      this.failed(error)
      return
    }
    if (job === undefined) return
    const started = performance.now()
    const attrs = { gate: job.gate_id, job: job.id }
    logger.info('rediff job started', { ...attrs, total: job.total, done: job.done, attempt: job.attempts })
    try {
      const options = compileCaptureOptions({ diff: job.diff_config, redactedFields: job.redacted_fields })
      const range = { from: job.window_from, to: job.window_to, order: 'asc' as const, after: job.cursor }
      const next = prefetched(scanCaptures(sql, job.gate_id, range, { rows: this.options.chunkRows ?? 500 }))
      const slicer = new TimeSlicer()
      const admit = (gateId: string, signature: Parameters<InsightCatalog['signature']>[1]) => this.catalog.signature(gateId, signature)
      let done = job.done
      for (;;) {
        if (this.stopping) {
          await this.store.release(job.id, this.owner)
          return
        }
        const page = await next()
        if (page === undefined) break
        if (page.length === 0) continue
        const items: RediffItem[] = []
        for (const capture of page) {
          items.push(await rediffItemOf(job.gate_id, capture, options, admit))
          await slicer.pause()
        }
        const last = page[page.length - 1]!
        const progress = { jobId: job.id, owner: this.owner, cursor: { at: last.at, id: last.id }, count: page.length }
        const changed = await withDeadlockRetry(() => applyRediffChunk(sql, job.gate_id, items, progress))
        if (changed === undefined) {
          // Cancelled, its gate deleted, or taken over: whoever changed it has the last word.
          logger.info('rediff job finished', { ...attrs, state: 'stopped', done, seconds: seconds(started) })
          return
        }
        done += page.length
      }
      if (await this.store.finish(job.id, this.owner, 'done')) {
        logger.info('rediff job finished', { ...attrs, state: 'done', done, seconds: seconds(started) })
      }
    } catch (error) {
      logger.error('rediff job failed', { ...attrs, error })
      // The cause is in the log; the job says only that it failed, as a 500 says nothing internal.
      await this.store.finish(job.id, this.owner, 'failed', 'the re-diff failed unexpectedly (the API logged "rediff job failed" with its cause)').catch(() => {})
    }
  }
}

function seconds(since: number): number {
  return Math.round((performance.now() - since) / 100) / 10
}
