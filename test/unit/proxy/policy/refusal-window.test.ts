import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { RefusalWindow } from '../../../../src/proxy/policy/refusal-window.ts'

describe('RefusalWindow', () => {
  test('after a refusal, no attempt until the window has passed', () => {
    let now = 1000
    const window = new RefusalWindow(500, () => now)
    expect(window.knownDown).toBe(false)
    expect(window.mayAttempt()).toBe(true)
    window.recordRefusal()
    now += 200
    expect(window.knownDown).toBe(true)
    expect(window.mayAttempt()).toBe(false)
    now += 300
    expect(window.knownDown).toBe(false)
    expect(window.mayAttempt()).toBe(true)
  })

  test('once the window has passed, one request probes and the others wait for its answer', () => {
    let now = 0
    const window = new RefusalWindow(100, () => now)
    window.recordRefusal()
    now = 150
    expect(window.mayAttempt()).toBe(true) // the probe
    expect(window.knownDown).toBe(true)
    expect(window.mayAttempt()).toBe(false)
    now = 151
    expect(window.mayAttempt()).toBe(false)
    // Refused again: a new window from now.
    window.recordRefusal()
    now = 250
    expect(window.mayAttempt()).toBe(false)
    now = 251
    expect(window.mayAttempt()).toBe(true)
    // Answered: the shadow is up, every request tries it.
    window.recordNotRefused()
    expect(window.knownDown).toBe(false)
    expect(window.mayAttempt()).toBe(true)
    expect(window.mayAttempt()).toBe(true)
  })

  test('a probe that ends with no word (abandoned at shutdown, say) is waited for one window, then another goes', () => {
    let now = 0
    const window = new RefusalWindow(100, () => now)
    window.recordRefusal()
    now = 100
    expect(window.mayAttempt()).toBe(true)
    now = 199
    expect(window.mayAttempt()).toBe(false)
    now = 200
    expect(window.mayAttempt()).toBe(true)
    expect(window.mayAttempt()).toBe(false)
  })

  test('a probe that times out or is reset closes the window: only refusals keep it', () => {
    let now = 0
    const window = new RefusalWindow(100, () => now)
    window.recordRefusal()
    now = 100
    expect(window.mayAttempt()).toBe(true)
    window.recordNotRefused()
    expect(window.knownDown).toBe(false)
    expect(window.mayAttempt()).toBe(true)
    expect(window.mayAttempt()).toBe(true)
  })

  test('a response closes the window at once', () => {
    let now = 0
    const window = new RefusalWindow(1000, () => now)
    window.recordRefusal()
    now += 10
    window.recordNotRefused()
    expect(window.knownDown).toBe(false)
    expect(window.mayAttempt()).toBe(true)
  })

  test('a new refusal restarts the window', () => {
    let now = 0
    const window = new RefusalWindow(100, () => now)
    window.recordRefusal()
    now = 90
    window.recordRefusal()
    now = 150
    expect(window.mayAttempt()).toBe(false)
    now = 190
    expect(window.mayAttempt()).toBe(true)
  })

  test('once the shadow has refused, at most one attempt per window that passed', () => {
    // Requests at any times; each attempt is refused some time later, or never answered.
    // Before the first refusal every request tries: nothing is known of the shadow yet.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 300 }), answerAfter: fc.option(fc.integer({ min: 0, max: 2000 })) }), { maxLength: 200 }),
        (windowMs, requests) => {
          let now = 0
          const window = new RefusalWindow(windowMs, () => now)
          const refusals: number[] = []
          let firstRefusal: number | undefined
          let attempts = 0
          for (const { gap, answerAfter } of requests) {
            now += gap
            while (refusals.length > 0 && refusals[0]! <= now) {
              refusals.shift()
              window.recordRefusal()
              firstRefusal ??= now
            }
            if (window.knownDown) continue
            if (!window.mayAttempt()) continue
            if (firstRefusal !== undefined) attempts++
            if (answerAfter !== null) {
              refusals.push(now + answerAfter)
              refusals.sort((a, b) => a - b)
            }
          }
          // Probes at least a window apart, the first a window after the first refusal.
          expect(attempts).toBeLessThanOrEqual(firstRefusal === undefined ? 0 : Math.floor((now - firstRefusal) / windowMs))
        },
      ),
    )
  })
})
