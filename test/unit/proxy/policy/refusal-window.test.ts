import { describe, expect, test } from 'bun:test'
import { RefusalWindow } from '../../../../src/proxy/policy/refusal-window.ts'

describe('RefusalWindow', () => {
  test('after a refusal, says how long ago until the window has passed', () => {
    let now = 1000
    const window = new RefusalWindow(500, () => now)
    expect(window.refusedAgo()).toBeUndefined()
    window.recordRefusal()
    now += 200
    expect(window.refusedAgo()).toBe(200)
    now += 300
    expect(window.refusedAgo()).toBeUndefined()
  })

  test('a success closes the window at once', () => {
    let now = 0
    const window = new RefusalWindow(1000, () => now)
    window.recordRefusal()
    now += 10
    window.recordSuccess()
    expect(window.refusedAgo()).toBeUndefined()
  })

  test('a new refusal restarts the window', () => {
    let now = 0
    const window = new RefusalWindow(100, () => now)
    window.recordRefusal()
    now = 90
    window.recordRefusal()
    now = 150
    expect(window.refusedAgo()).toBe(60)
  })
})
