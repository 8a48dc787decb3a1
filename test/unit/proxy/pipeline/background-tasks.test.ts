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
})
