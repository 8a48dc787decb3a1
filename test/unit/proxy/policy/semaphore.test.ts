import { describe, expect, test } from 'bun:test'
import { fullGC } from 'bun:jsc'
import { Semaphore, SemaphoreAbortedError } from '../../../../src/proxy/policy/semaphore.ts'

describe('Semaphore', () => {
  test('admits up to its limit, then refuses tryAcquire', () => {
    const semaphore = new Semaphore(2)
    expect(semaphore.tryAcquire()).toBe(true)
    expect(semaphore.tryAcquire()).toBe(true)
    expect(semaphore.tryAcquire()).toBe(false)
    expect(semaphore.inUse).toBe(2)
    semaphore.release()
    expect(semaphore.tryAcquire()).toBe(true)
  })

  test('a limit of 0 is unbounded', () => {
    const semaphore = new Semaphore(0)
    for (let i = 0; i < 10_000; i++) expect(semaphore.tryAcquire()).toBe(true)
    expect(semaphore.inUse).toBe(10_000)
  })

  test('waiters are served in arrival order and the slot passes straight to them', async () => {
    const semaphore = new Semaphore(1)
    await semaphore.acquire()
    const order: number[] = []
    const waiting = [1, 2, 3].map((n) => semaphore.acquire().then(() => order.push(n)))
    expect(semaphore.waiting).toBe(3)
    for (let i = 0; i < 3; i++) {
      semaphore.release()
      await Bun.sleep(0)
    }
    await Promise.all(waiting)
    expect(order).toEqual([1, 2, 3])
    // The last waiter still holds the slot.
    expect(semaphore.inUse).toBe(1)
    expect(semaphore.tryAcquire()).toBe(false)
  })

  test('an aborted waiter leaves the line and holds nothing', async () => {
    const semaphore = new Semaphore(1)
    await semaphore.acquire()
    const controller = new AbortController()
    const aborted = semaphore.acquire(controller.signal)
    const next = semaphore.acquire()
    controller.abort(new Error('gave up'))
    expect(aborted).rejects.toBeInstanceOf(SemaphoreAbortedError)
    semaphore.release()
    await next
    expect(semaphore.inUse).toBe(1)
    expect(semaphore.waiting).toBe(0)
  })

  test('an already aborted signal rejects at once', async () => {
    const semaphore = new Semaphore(1)
    semaphore.tryAcquire()
    expect(semaphore.acquire(AbortSignal.abort())).rejects.toBeInstanceOf(SemaphoreAbortedError)
  })

  test('release with no holder does not go negative', () => {
    const semaphore = new Semaphore(1)
    semaphore.release()
    expect(semaphore.inUse).toBe(0)
  })

  test('rejects a negative or fractional limit', () => {
    expect(() => new Semaphore(-1)).toThrow(RangeError)
    expect(() => new Semaphore(1.5)).toThrow(RangeError)
  })

  test('a served waiter is not kept while others still wait', async () => {
    const semaphore = new Semaphore(1)
    await semaphore.acquire()
    /** A waiter with a signal of its own, watched; nothing here keeps the signal. */
    const wait = () => {
      const signal = new AbortController().signal
      return { served: semaphore.acquire(signal), signal: new WeakRef(signal) }
    }
    const first = wait()
    const second = wait()
    semaphore.release()
    await first.served
    await Bun.sleep(0) // a WeakRef's target is kept until the task that made it ends
    fullGC()
    expect(first.signal.deref()).toBeUndefined()
    expect(second.signal.deref()).toBeDefined()
    expect(semaphore.waiting).toBe(1)
    semaphore.release()
    await second.served
  })

  test('a long line of waiters drains completely', async () => {
    const semaphore = new Semaphore(1)
    await semaphore.acquire()
    let served = 0
    const all = Array.from({ length: 3000 }, () => semaphore.acquire().then(() => {
      served++
      semaphore.release()
    }))
    semaphore.release()
    await Promise.all(all)
    expect(served).toBe(3000)
    expect(semaphore.inUse).toBe(0)
  })
})
