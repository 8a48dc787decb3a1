import { expect, test } from 'bun:test'
import { JAVASCRIPT_THREAD, threadsOf } from './threads.ts'

test("a Bun process's threads: its main thread is the JavaScript one, the others carry their own names", () => {
  const threads = threadsOf(process.pid)
  expect(threads.filter((t) => t.name === JAVASCRIPT_THREAD)).toEqual([{ tid: String(process.pid), name: JAVASCRIPT_THREAD }])
  expect(threads.length).toBeGreaterThan(1)
  for (const t of threads) expect(t.name).not.toBe('')
})

test('a process that has ended has no threads, and reading them does not throw', () => {
  const child = Bun.spawnSync(['true'])
  expect(child.exitCode).toBe(0)
  expect(threadsOf(child.pid)).toEqual([])
})
