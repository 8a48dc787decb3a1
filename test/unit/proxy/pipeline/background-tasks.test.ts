import { describe, expect, test } from 'bun:test'
import { BackgroundTasks, DrainAbortReason } from '../../../../src/proxy/pipeline/background-tasks.ts'

describe('BackgroundTasks', () => {
  test('drain waits for tasks that finish within the bound', async () => {
    const tasks = new BackgroundTasks()
    let finished = 0
    for (let i = 0; i < 3; i++) {
      tasks.run(async () => {
        await Bun.sleep(20)
        finished++
      }, () => {})
    }
    expect(tasks.size).toBe(3)
    expect(await tasks.drain(5000)).toEqual({ completed: 3, aborted: 0 })
    expect(finished).toBe(3)
  })

  test('at the bound, the rest are aborted with a DrainAbortReason and awaited', async () => {
    const tasks = new BackgroundTasks()
    let reason: unknown
    tasks.run(
      (task) =>
        new Promise<void>((resolve) => {
          task.signal.addEventListener('abort', () => {
            reason = task.signal.reason
            resolve()
          })
        }),
      () => {},
    )
    tasks.run(() => Bun.sleep(5), () => {})
    const started = performance.now()
    expect(await tasks.drain(100)).toEqual({ completed: 1, aborted: 1 })
    expect(performance.now() - started).toBeLessThan(2000)
    expect(reason).toBeInstanceOf(DrainAbortReason)
    expect(tasks.size).toBe(0)
  })

  test('a task that rejects is reported and still leaves', async () => {
    const tasks = new BackgroundTasks()
    const seen: unknown[] = []
    tasks.run(() => Promise.reject(new Error('bug')), (error) => seen.push(error))
    await tasks.whenIdle()
    expect(seen).toHaveLength(1)
    expect(tasks.size).toBe(0)
  })

  test('whenIdle resolves at once when nothing runs', async () => {
    await new BackgroundTasks().whenIdle()
  })
  test('a task started after a drain aborted the others starts unaborted, and a later drain aborts it', async () => {
    const tasks = new BackgroundTasks()
    const untilAborted = (signal: AbortSignal) =>
      new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()))
    let first: AbortSignal | undefined
    tasks.run((task) => {
      first = task.signal
      return untilAborted(task.signal)
    }, () => {})
    let later: AbortSignal | undefined
    const firstDrain = tasks.drain(10)
    // Started while the first drain waits for the aborted task to settle.
    await Bun.sleep(30)
    tasks.run((task) => {
      later = task.signal
      return untilAborted(task.signal)
    }, () => {})
    expect(first!.aborted).toBe(true)
    expect(later!.aborted).toBe(false)
    await firstDrain.catch(() => {})
    expect(await tasks.drain(10)).toEqual({ completed: 0, aborted: 1 })
    expect(later!.aborted).toBe(true)
  })

  test('each aborted task hears of it once, also when two drains end together', async () => {
    const tasks = new BackgroundTasks()
    const heard: unknown[] = []
    for (let i = 0; i < 2; i++) {
      tasks.run(
        (task) => new Promise<void>((resolve) => task.signal.addEventListener('abort', () => setTimeout(resolve, 5))),
        () => {},
        (reason) => heard.push(reason),
      )
    }
    const [a, b] = await Promise.all([tasks.drain(10), tasks.drain(10)])
    expect(a.aborted + b.aborted).toBe(4)
    expect(heard).toHaveLength(2)
    for (const reason of heard) expect(reason).toBeInstanceOf(DrainAbortReason)
  })
})
