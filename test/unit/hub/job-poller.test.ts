import { describe, expect, test } from 'bun:test'
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import { ApiError } from '../../../hub/src/lib/api-error.ts'
import { JobPoller, isFinal, jobProgress } from '../../../hub/src/lib/job-poller.ts'
import type { JobState, RediffJob } from '../../../hub/src/lib/types.ts'

class Host implements ReactiveControllerHost {
  controllers: ReactiveController[] = []
  updateComplete = Promise.resolve(true)
  addController(c: ReactiveController) {
    this.controllers.push(c)
  }
  removeController() {}
  requestUpdate() {}
  connect() {
    for (const c of this.controllers) c.hostConnected?.()
  }
  disconnect() {
    for (const c of this.controllers) c.hostDisconnected?.()
  }
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0))
}

const job = (state: JobState, done: number, total = 4): RediffJob => ({
  id: 'job-1',
  kind: 'rediff',
  state,
  done,
  total,
  started_at: '2026-01-01T00:00:00Z',
  finished_at: null,
  error: null,
})

describe('JobPoller', () => {
  test('reads the job until it is done, then stops', async () => {
    const states = [job('running', 1), job('running', 3), job('done', 4)]
    let reads = 0
    const host = new Host()
    const poller = new JobPoller(host, async () => states[Math.min(reads++, states.length - 1)]!, 0)
    host.connect()
    poller.watch(job('queued', 0))
    for (let i = 0; i < 10 && poller.job?.state !== 'done'; i++) await settle()
    expect(poller.job?.state).toBe('done')
    expect(reads).toBe(3)
    await settle()
    expect(reads).toBe(3)
  })

  test('a job already over is shown and never read', async () => {
    let reads = 0
    const host = new Host()
    const poller = new JobPoller(host, async () => (reads++, job('done', 4)), 0)
    host.connect()
    poller.watch(job('cancelled', 2))
    await settle()
    expect(reads).toBe(0)
    expect(poller.job?.state).toBe('cancelled')
  })

  test('a failed read stops the polling and keeps the error; resume goes on', async () => {
    let fail = true
    let reads = 0
    const host = new Host()
    const poller = new JobPoller(host, async () => {
      reads++
      if (fail) throw new ApiError({ kind: 'network', message: 'refused' }, 'http://api/x')
      return job('done', 4)
    }, 0)
    host.connect()
    poller.watch(job('running', 1))
    await settle()
    expect(poller.error).toBeInstanceOf(ApiError)
    expect(reads).toBe(1)
    await settle()
    expect(reads).toBe(1)
    fail = false
    poller.resume()
    await settle()
    expect(poller.error).toBeUndefined()
    expect(poller.job?.state).toBe('done')
  })

  test('leaving the page stops the polling and aborts the read; coming back resumes it', async () => {
    const signals: AbortSignal[] = []
    const host = new Host()
    const poller = new JobPoller(host, (_id, signal) => (signals.push(signal), new Promise<RediffJob>(() => {})), 0)
    host.connect()
    poller.watch(job('running', 1))
    await settle()
    expect(signals).toHaveLength(1)
    host.disconnect()
    expect(signals[0]!.aborted).toBe(true)
    await settle()
    expect(signals).toHaveLength(1)
    host.connect()
    await settle()
    expect(signals).toHaveLength(2)
  })
})

describe('job progress', () => {
  test('done of total, 1 when done, 0 without a total', () => {
    expect(jobProgress(job('running', 1, 4))).toBe(0.25)
    expect(jobProgress(job('done', 0, 0))).toBe(1)
    expect(jobProgress(job('queued', 0, 0))).toBe(0)
    expect(jobProgress(job('running', 9, 4))).toBe(1)
    expect([job('done', 4), job('failed', 1), job('cancelled', 1)].every(isFinal)).toBe(true)
    expect([job('queued', 0), job('running', 1)].some(isFinal)).toBe(false)
  })
})
