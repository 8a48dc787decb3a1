import { describe, expect, test } from 'bun:test'
import { Throttle } from '../../../src/log/index.ts'

function fakeClock() {
  let now = 0
  return { now: () => now, advance: (ms: number) => (now += ms) }
}

describe('Throttle', () => {
  test('admits once per interval per key and counts the rest', () => {
    const clock = fakeClock()
    const throttle = new Throttle({ intervalMs: 1000, now: clock.now })
    expect(throttle.admit('full')).toBe(0)
    expect(throttle.admit('full')).toBeUndefined()
    clock.advance(999)
    expect(throttle.admit('full')).toBeUndefined()
    clock.advance(1)
    expect(throttle.admit('full')).toBe(2)
    expect(throttle.admit('full')).toBeUndefined()
  })

  test('keys are independent', () => {
    const throttle = new Throttle({ intervalMs: 1000, now: fakeClock().now })
    expect(throttle.admit('a')).toBe(0)
    expect(throttle.admit('b')).toBe(0)
    expect(throttle.admit('a')).toBeUndefined()
  })

  test('a new interval starts at the admission, not on a fixed grid', () => {
    const clock = fakeClock()
    const throttle = new Throttle({ intervalMs: 1000, now: clock.now })
    throttle.admit('k')
    clock.advance(2500)
    expect(throttle.admit('k')).toBe(0)
    clock.advance(600)
    expect(throttle.admit('k')).toBeUndefined()
  })

  test('drain hands over pending counts and restarts them', () => {
    const throttle = new Throttle({ intervalMs: 1000, now: fakeClock().now })
    throttle.admit('a')
    throttle.admit('a')
    throttle.admit('a')
    throttle.admit('b')
    expect(throttle.drain()).toEqual([['a', 2]])
    expect(throttle.drain()).toEqual([])
  })

  test('stays bounded in keys, forgetting idle ones first', () => {
    const clock = fakeClock()
    const throttle = new Throttle({ intervalMs: 100, now: clock.now, maxKeys: 2 })
    throttle.admit('idle')
    throttle.admit('busy')
    throttle.admit('busy')
    clock.advance(100)
    throttle.admit('new')
    // "idle" was forgotten, so it is admitted at once; "busy" kept its count.
    expect(throttle.drain()).toEqual([['busy', 1]])
  })

  test('when every key is busy, the oldest goes', () => {
    const throttle = new Throttle({ intervalMs: 1000, now: fakeClock().now, maxKeys: 2 })
    for (const key of ['a', 'a', 'b', 'b', 'c']) throttle.admit(key)
    expect(throttle.drain()).toEqual([['b', 1]])
  })
})
