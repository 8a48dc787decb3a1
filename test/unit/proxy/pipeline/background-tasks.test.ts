import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { BackgroundTasks, DrainAbortReason, type TrackedTask } from '../../../../src/proxy/pipeline/background-tasks.ts'

/**
 * A task as the shadow handler's comparisons are: tracked, then finished
 * when its work is over; `onAbort` hears of the drain's abort.
 */
function start(
  tasks: BackgroundTasks,
  work: (signal: AbortSignal) => Promise<void>,
  onAbort?: (reason: unknown) => void,
): TrackedTask {
  const task: TrackedTask = {
    drainSignal: new AbortController().signal,
    trackedIndex: -1,
    onDrainAbort: (reason) => onAbort?.(reason),
  }
  tasks.track(task)
  const over = () => tasks.finished(task)
  work(task.drainSignal).then(over, over)
  return task
}

const untilAborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()))

describe('BackgroundTasks', () => {
  test('drain waits for tasks that finish within the bound', async () => {
    const tasks = new BackgroundTasks()
    let finished = 0
    for (let i = 0; i < 3; i++) {
      start(tasks, async () => {
        await Bun.sleep(20)
        finished++
      })
    }
    expect(tasks.size).toBe(3)
    expect(await tasks.drain(5000)).toEqual({ completed: 3, aborted: 0 })
    expect(finished).toBe(3)
  })

  test('at the bound, the rest are aborted with a DrainAbortReason and awaited', async () => {
    const tasks = new BackgroundTasks()
    let reason: unknown
    start(tasks, async (signal) => {
      await untilAborted(signal)
      reason = signal.reason
    })
    start(tasks, () => Bun.sleep(5))
    const started = performance.now()
    expect(await tasks.drain(100)).toEqual({ completed: 1, aborted: 1 })
    expect(performance.now() - started).toBeLessThan(2000)
    expect(reason).toBeInstanceOf(DrainAbortReason)
    expect(tasks.size).toBe(0)
  })

  test('a task finished twice, or never tracked, changes nothing', async () => {
    const tasks = new BackgroundTasks()
    const one = start(tasks, () => Bun.sleep(5))
    start(tasks, () => Bun.sleep(5))
    tasks.finished(one)
    tasks.finished(one)
    tasks.finished({ drainSignal: new AbortController().signal, trackedIndex: -1, onDrainAbort() {} })
    // Running in another tracker, at the place of one running here.
    const elsewhere = start(new BackgroundTasks(), () => Bun.sleep(5))
    tasks.finished(elsewhere)
    expect(tasks.size).toBe(1)
    await tasks.whenIdle()
    expect(tasks.size).toBe(0)
  })

  test('whatever the order tasks finish in, the others run on and the drain aborts exactly them', async () => {
    // Track and finish in any order (some finished twice) against a model:
    // the running tasks are a list in which the last takes a finished one's place.
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), fc.nat(40)), { maxLength: 80 }), async (steps) => {
        const tasks = new BackgroundTasks()
        const all: TrackedTask[] = []
        const running = new Set<TrackedTask>()
        const aborted = new Set<TrackedTask>()
        for (const [add, pick] of steps) {
          const finished = all.filter((task) => !running.has(task))
          if (add && pick % 4 === 0 && finished.length > 0) {
            // A finished task may run again.
            const task = finished[pick % finished.length]!
            tasks.track(task)
            running.add(task)
          } else if (add || all.length === 0) {
            const task: TrackedTask = { drainSignal: new AbortController().signal, trackedIndex: -1, onDrainAbort: () => void aborted.add(task) }
            tasks.track(task)
            all.push(task)
            running.add(task)
          } else {
            const task = all[pick % all.length]!
            tasks.finished(task)
            running.delete(task)
          }
          expect(tasks.size).toBe(running.size)
        }
        const left = [...running]
        // The aborted ones finish as an aborted task does.
        for (const task of left) task.drainSignal.addEventListener('abort', () => queueMicrotask(() => tasks.finished(task)))
        expect(await tasks.drain(0)).toEqual({ completed: 0, aborted: left.length })
        expect([...aborted].sort((a, b) => all.indexOf(a) - all.indexOf(b))).toEqual(left.sort((a, b) => all.indexOf(a) - all.indexOf(b)))
        expect(tasks.size).toBe(0)
        for (const task of all) expect(task.trackedIndex).toBe(-1)
      }),
      { numRuns: 200 },
    )
  })

  test('a task already running cannot be tracked again', () => {
    const tasks = new BackgroundTasks()
    const task = start(tasks, () => Bun.sleep(5))
    expect(() => tasks.track(task)).toThrow('already running')
    expect(tasks.size).toBe(1)
  })

  test('whenIdle resolves at once when nothing runs', async () => {
    await new BackgroundTasks().whenIdle()
  })

  test('a task started after a drain aborted the others starts unaborted, and a later drain aborts it', async () => {
    const tasks = new BackgroundTasks()
    const first = start(tasks, untilAborted)
    const firstDrain = tasks.drain(10)
    // Started while the first drain waits for the aborted task to settle.
    await Bun.sleep(30)
    const later = start(tasks, untilAborted)
    expect(first.drainSignal.aborted).toBe(true)
    expect(later.drainSignal.aborted).toBe(false)
    await firstDrain.catch(() => {})
    expect(await tasks.drain(10)).toEqual({ completed: 0, aborted: 1 })
    expect(later.drainSignal.aborted).toBe(true)
  })

  test('each aborted task hears of it once, also when two drains end together', async () => {
    const tasks = new BackgroundTasks()
    const heard: unknown[] = []
    for (let i = 0; i < 2; i++) {
      start(
        tasks,
        (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => setTimeout(resolve, 5))),
        (reason) => heard.push(reason),
      )
    }
    const [a, b] = await Promise.all([tasks.drain(10), tasks.drain(10)])
    expect(a.aborted + b.aborted).toBe(4)
    expect(heard).toHaveLength(2)
    for (const reason of heard) expect(reason).toBeInstanceOf(DrainAbortReason)
  })
})
