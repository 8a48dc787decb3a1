import { describe, expect, test } from 'bun:test'
import { DeadlineQueue } from '../../../src/async/deadline-queue.ts'

/** Resolves once `count` items have fired, or rejects after a bounded wait. */
function fired<T>(ms: number) {
  const items: { item: T; at: number }[] = []
  let wake: (() => void) | undefined
  let want = 0
  const queue = new DeadlineQueue<T>(ms, (item) => {
    items.push({ item, at: performance.now() })
    if (items.length >= want) wake?.()
  })
  const until = (count: number) =>
    new Promise<void>((resolve, reject) => {
      want = count
      if (items.length >= count) return resolve()
      wake = resolve
      setTimeout(() => reject(new Error(`only ${items.length} of ${count} fired`)), 5000)
    })
  return { queue, items, until }
}

describe('DeadlineQueue', () => {
  test('fires each pending deadline once, in the order they were set, never before it', async () => {
    const { queue, items, until } = fired<string>(20)
    const setAt = new Map<string, number>()
    for (const name of ['a', 'b', 'c']) {
      setAt.set(name, performance.now())
      queue.add(name)
      await Bun.sleep(3)
    }
    await until(3)
    expect(items.map((i) => i.item)).toEqual(['a', 'b', 'c'])
    for (const { item, at } of items) expect(at - setAt.get(item)!).toBeGreaterThanOrEqual(20 - 1)
    expect(queue.pending).toBe(0)
  })

  test('a cancelled deadline does not fire; the others still do', async () => {
    const { queue, items, until } = fired<string>(10)
    const a = queue.add('a')
    queue.add('b')
    const c = queue.add('c')
    queue.add('d')
    a.cancel()
    c.cancel()
    c.cancel()
    expect(queue.pending).toBe(2)
    await until(2)
    await Bun.sleep(30)
    expect(items.map((i) => i.item)).toEqual(['b', 'd'])
  })

  test('cancelling every deadline leaves nothing pending, and the queue is used again after', async () => {
    const { queue, items, until } = fired<number>(10)
    const deadlines = Array.from({ length: 3000 }, (_, i) => queue.add(i))
    for (const deadline of deadlines) deadline.cancel()
    expect(queue.pending).toBe(0)
    queue.add(-1)
    await until(1)
    expect(items.map((i) => i.item)).toEqual([-1])
  })

  test('a deadline cancelled after it fired changes nothing', async () => {
    const { queue, items, until } = fired<string>(5)
    const a = queue.add('a')
    await until(1)
    a.cancel()
    expect(queue.pending).toBe(0)
    queue.add('b')
    await until(2)
    expect(items.map((i) => i.item)).toEqual(['a', 'b'])
  })

  test('what fires may set and cancel deadlines', async () => {
    const order: string[] = []
    let other: { cancel(): void } | undefined
    const queue: DeadlineQueue<string> = new DeadlineQueue<string>(5, (item) => {
      order.push(item)
      if (item === 'a') {
        other?.cancel()
        queue.add('c')
      }
    })
    queue.add('a')
    other = queue.add('b')
    for (let i = 0; i < 200 && order.length < 2; i++) await Bun.sleep(5)
    expect(order).toEqual(['a', 'c'])
    expect(queue.pending).toBe(0)
  })
})
