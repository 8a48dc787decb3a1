import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { ByteBudget, DEFAULT_MAX_BYTES_IN_FLIGHT, reportCopyBytes } from '../../../../src/proxy/policy/byte-budget.ts'

describe('ByteBudget', () => {
  test('reservations take bytes up to the limit together; a refusal takes nothing and ends the reservation', () => {
    const budget = new ByteBudget(100)
    const a = budget.open()
    const b = budget.open()
    expect(a.add(60)).toBe(true)
    expect(b.add(30)).toBe(true)
    expect(budget.used).toBe(90)
    expect(b.add(11)).toBe(false)
    expect(budget.used).toBe(90)
    // Refused once, refused from then on, even for what would fit.
    expect(b.add(1)).toBe(false)
    expect(a.add(10)).toBe(true)
    expect(budget.used).toBe(100)
  })

  test('release gives back everything held, once; a released reservation takes nothing more', () => {
    const budget = new ByteBudget(100)
    const a = budget.open()
    a.add(40)
    a.add(40)
    a.release()
    a.release()
    expect(budget.used).toBe(0)
    expect(a.add(1)).toBe(false)
    expect(budget.open().add(100)).toBe(true)
  })

  test('add is bound: it can be passed around as a function', () => {
    const budget = new ByteBudget(10)
    const { add } = budget.open()
    expect([5, 5, 1].map(add)).toEqual([true, true, false])
  })

  test('a limit below 1 is refused', () => {
    expect(() => new ByteBudget(0)).toThrow(RangeError)
    expect(() => new ByteBudget(1.5)).toThrow(RangeError)
  })

  test('never more than the limit is held, and all of it comes back, whatever the order', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('open' as const) }),
      fc.record({ kind: fc.constant('add' as const), which: fc.nat(9), bytes: fc.nat(60) }),
      fc.record({ kind: fc.constant('release' as const), which: fc.nat(9) }),
    )
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.array(step, { maxLength: 60 }), (limit, steps) => {
        const budget = new ByteBudget(limit)
        const open = [budget.open()]
        for (const s of steps) {
          if (s.kind === 'open') open.push(budget.open())
          else if (s.kind === 'add') open[s.which % open.length]!.add(s.bytes)
          else open[s.which % open.length]!.release()
          expect(budget.used).toBeLessThanOrEqual(limit)
          expect(budget.used).toBe(open.reduce((sum, r) => sum + r.held, 0))
        }
        for (const r of open) r.release()
        expect(budget.used).toBe(0)
      }),
      { numRuns: 300 },
    )
  })
})

test('the default fits two comparisons at the default body bound with their report copies', () => {
  const bodies = 3 * 10 * 1024 * 1024
  expect(2 * (bodies + reportCopyBytes(bodies))).toBeLessThanOrEqual(DEFAULT_MAX_BYTES_IN_FLIGHT)
})

test('the report copy is two base64 texts of the bodies', () => {
  expect(reportCopyBytes(3)).toBe(8)
  expect(reportCopyBytes(4)).toBe(16)
  expect(reportCopyBytes(0)).toBe(0)
})
