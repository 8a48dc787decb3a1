import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import {
  BreakerOpenError,
  CircuitBreaker,
  type BreakerState,
  type CircuitBreakerOptions,
} from '../../../../src/proxy/policy/circuit-breaker.ts'

function setup(options: CircuitBreakerOptions = {}) {
  let time = 1_000
  const breaker = new CircuitBreaker({ ...options, now: () => time })
  const changes: string[] = []
  breaker.onStateChange((state, previous) => changes.push(`${previous} -> ${state}`))
  const advance = (ms: number) => {
    time += ms
  }
  const fail = (times = 1) => {
    for (let i = 0; i < times; i++) if (breaker.canRequest()) breaker.onFailure()
  }
  const succeed = (times = 1) => {
    for (let i = 0; i < times; i++) if (breaker.canRequest()) breaker.onSuccess()
  }
  /** Drives the breaker from closed into `state`, then forgets the changes seen on the way. */
  const reach = (state: BreakerState) => {
    if (state !== 'closed') fail(breaker.failureThreshold)
    if (state === 'half-open') advance(breaker.delayMs)
    expect(breaker.state).toBe(state)
    changes.length = 0
  }
  return { breaker, changes, advance, fail, succeed, reach }
}

type Env = ReturnType<typeof setup>

// The breaker's table of transitions (circuit-breaker.ts). Each row: get to
// `from`, apply the trigger one step short of the condition (no move), then
// the last step (exactly one move, to `to`).
const SPEC_TABLE: {
  from: BreakerState
  trigger: string
  condition: string
  to: BreakerState
  almost: (env: Env) => void
  last: (env: Env) => void
}[] = [
  {
    from: 'closed',
    trigger: 'API call fails',
    condition: 'consecutive failures reach the failure threshold',
    to: 'open',
    almost: (env) => env.fail(env.breaker.failureThreshold - 1),
    last: (env) => env.fail(),
  },
  {
    from: 'open',
    trigger: 'time passes',
    condition: 'the delay has elapsed',
    to: 'half-open',
    almost: (env) => env.advance(env.breaker.delayMs - 1),
    last: (env) => env.advance(1),
  },
  {
    from: 'half-open',
    trigger: 'API call succeeds',
    condition: 'successes reach the success threshold',
    to: 'closed',
    almost: (env) => env.succeed(env.breaker.successThreshold - 1),
    last: (env) => env.succeed(),
  },
]

const SETTINGS: [string, CircuitBreakerOptions][] = [
  ['defaults (5 failures, 1m, 2 successes)', {}],
  ['3 failures, 1s, 1 success', { failureThreshold: 3, delayMs: 1_000, successThreshold: 1 }],
  ['1 failure, 10ms, 4 successes', { failureThreshold: 1, delayMs: 10, successThreshold: 4 }],
]

describe('CircuitBreaker: the three transitions', () => {
  for (const [name, options] of SETTINGS) {
    describe(name, () => {
      for (const row of SPEC_TABLE) {
        test(`${row.from} -> ${row.to} when ${row.trigger} and ${row.condition}`, () => {
          const env = setup(options)
          env.reach(row.from)
          row.almost(env)
          expect(env.breaker.state).toBe(row.from)
          row.last(env)
          expect(env.breaker.state).toBe(row.to)
          expect(env.changes).toEqual([`${row.from} -> ${row.to}`])
        })
      }
    })
  }
})

describe('CircuitBreaker: behaviour beyond the three transitions', () => {
  test('starts closed with the documented defaults', () => {
    const breaker = new CircuitBreaker()
    expect(breaker.state).toBe('closed')
    expect(breaker).toMatchObject({
      failureThreshold: 5,
      delayMs: 60_000,
      successThreshold: 2,
      halfOpenMaxCalls: 2,
    })
  })

  test('a success while closed resets the count of consecutive failures', () => {
    const { breaker, fail, succeed } = setup()
    fail(4)
    succeed()
    fail(4)
    expect(breaker.state).toBe('closed')
    fail()
    expect(breaker.state).toBe('open')
  })

  test('refuses calls while open', () => {
    const { breaker, reach, advance } = setup()
    reach('open')
    advance(59_999)
    expect(breaker.canRequest()).toBe(false)
  })

  test('a failure in half-open reopens and restarts the delay', () => {
    const { breaker, reach, fail, advance, changes } = setup()
    reach('half-open')
    fail()
    expect(breaker.state).toBe('open')
    advance(59_999)
    expect(breaker.state).toBe('open')
    advance(1)
    expect(breaker.state).toBe('half-open')
    expect(changes).toEqual(['half-open -> open', 'open -> half-open'])
  })

  test('a failure after some half-open successes still reopens', () => {
    const { breaker, reach, succeed, fail } = setup({ successThreshold: 3 })
    reach('half-open')
    succeed(2)
    fail()
    expect(breaker.state).toBe('open')
  })

  test('goes half-open lazily: the listener fires when the state is next read', () => {
    const { breaker, reach, advance, changes } = setup()
    reach('open')
    advance(120_000)
    expect(changes).toEqual([])
    expect(breaker.state).toBe('half-open')
    expect(changes).toEqual(['open -> half-open'])
  })

  test('half-open admits at most successThreshold calls at a time', () => {
    const { breaker, reach } = setup({ successThreshold: 2 })
    reach('half-open')
    expect([breaker.canRequest(), breaker.canRequest(), breaker.canRequest()]).toEqual([
      true,
      true,
      false,
    ])
    breaker.onSuccess()
    expect(breaker.state).toBe('half-open')
    expect(breaker.canRequest()).toBe(true)
  })

  test('halfOpenMaxCalls widens the half-open window', () => {
    const { breaker, reach } = setup({ successThreshold: 1, halfOpenMaxCalls: 3 })
    reach('half-open')
    expect([1, 2, 3, 4].map(() => breaker.canRequest())).toEqual([true, true, true, false])
  })

  test('outcomes reported while open are ignored', () => {
    const { breaker, reach, changes } = setup()
    reach('open')
    breaker.onSuccess()
    breaker.onFailure()
    expect(breaker.state).toBe('open')
    expect(changes).toEqual([])
  })

  test('an unsubscribed listener is not called', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1 })
    const seen: BreakerState[] = []
    const unsubscribe = breaker.onStateChange((state) => seen.push(state))
    unsubscribe()
    breaker.onFailure()
    expect(breaker.state).toBe('open')
    expect(seen).toEqual([])
  })

  test('the default clock is real time: a zero delay half-opens at once', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1, delayMs: 0 })
    breaker.onFailure()
    expect(breaker.state).toBe('half-open')
  })

  test.each<[CircuitBreakerOptions]>([
    [{ failureThreshold: 0 }],
    [{ failureThreshold: 1.5 }],
    [{ successThreshold: 0 }],
    [{ halfOpenMaxCalls: 0 }],
    [{ delayMs: -1 }],
    [{ delayMs: Number.NaN }],
    [{ delayMs: Number.POSITIVE_INFINITY }],
  ])('rejects the options %p', (options) => {
    expect(() => new CircuitBreaker(options)).toThrow(RangeError)
  })
})

describe('CircuitBreaker.execute', () => {
  test('returns the result and counts a success', async () => {
    const { breaker, reach } = setup({ successThreshold: 1 })
    reach('half-open')
    expect(await breaker.execute(() => 42)).toBe(42)
    expect(breaker.state).toBe('closed')
  })

  test('rethrows a rejection or a thrown error and counts a failure', async () => {
    const { breaker } = setup({ failureThreshold: 2 })
    const boom = new Error('boom')
    await expect(breaker.execute(() => Promise.reject(boom))).rejects.toBe(boom)
    const throwing = () => {
      throw boom
    }
    await expect(breaker.execute(throwing)).rejects.toBe(boom)
    expect(breaker.state).toBe('open')
  })

  test('a neutral result neither closes nor opens, and frees its half-open trial slot', async () => {
    const { breaker, reach } = setup({ failureThreshold: 2, successThreshold: 1, halfOpenMaxCalls: 1 })
    await expect(breaker.execute(() => Promise.reject(new Error('down')))).rejects.toThrow('down')
    // A neutral answer does not reset the consecutive failures: the next failure opens.
    expect(await breaker.execute(() => 429, (status) => status === 429)).toBe(429)
    await expect(breaker.execute(() => Promise.reject(new Error('down')))).rejects.toThrow('down')
    expect(breaker.state).toBe('open')
    reach('half-open')
    for (let i = 0; i < 3; i++) expect(await breaker.execute(() => 429, (status) => status === 429)).toBe(429)
    expect(breaker.state).toBe('half-open')
    expect(await breaker.execute(() => 201, (status) => status === 429)).toBe(201)
    expect(breaker.state).toBe('closed')
  })

  test('throws BreakerOpenError without calling fn while open', async () => {
    const { breaker, reach, advance } = setup()
    reach('open')
    advance(15_000)
    let called = false
    const error = await breaker
      .execute(() => {
        called = true
      })
      .catch((caught: unknown) => caught)
    expect(called).toBe(false)
    expect(error).toBeInstanceOf(BreakerOpenError)
    expect(error).toMatchObject({ code: 'breaker-open', state: 'open', retryInMs: 45_000 })
  })

  test('throws BreakerOpenError in half-open when every trial slot is taken', async () => {
    const { breaker, reach } = setup({ successThreshold: 1 })
    reach('half-open')
    let release: (value: string) => void = () => {}
    const trial = breaker.execute(() => new Promise<string>((resolve) => (release = resolve)))
    const error = await breaker.execute(() => 'second').catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'breaker-open', state: 'half-open', retryInMs: 0 })
    release('first')
    expect(await trial).toBe('first')
    expect(breaker.state).toBe('closed')
  })

  test('ignores the outcome of a call admitted under an earlier state', async () => {
    const { breaker, advance, changes } = setup({ failureThreshold: 2, delayMs: 100 })
    let failSlowCall: (error: Error) => void = () => {}
    const slow = breaker.execute(() => new Promise<never>((_, reject) => (failSlowCall = reject)))
    breaker.onFailure()
    breaker.onFailure()
    advance(100)
    expect(breaker.state).toBe('half-open')
    failSlowCall(new Error('late'))
    await slow.catch(() => {})
    expect(breaker.state).toBe('half-open')
    expect(changes).toEqual(['closed -> open', 'open -> half-open'])
  })
})

/**
 * The table of transitions as a plain model (every call reported at once, so the
 * half-open concurrency limit never bites), to compare against random runs.
 */
function model(failureThreshold: number, delayMs: number, successThreshold: number) {
  let state: BreakerState = 'closed'
  let failures = 0
  let successes = 0
  let openedAt = 0
  let time = 0
  const refresh = () => {
    if (state === 'open' && time - openedAt >= delayMs) {
      state = 'half-open'
      successes = 0
    }
  }
  return {
    advance(ms: number) {
      time += ms
    },
    call(ok: boolean) {
      refresh()
      if (state === 'closed' && ok) failures = 0
      else if (state === 'closed' && ++failures >= failureThreshold) {
        state = 'open'
        openedAt = time
        failures = 0
      } else if (state === 'half-open' && !ok) {
        state = 'open'
        openedAt = time
      } else if (state === 'half-open' && ++successes >= successThreshold) state = 'closed'
    },
    state() {
      refresh()
      return state
    },
  }
}

describe('CircuitBreaker (property)', () => {
  test('follows the table of transitions over any sequence of calls and pauses', () => {
    const step = fc.oneof(
      fc.boolean().map((ok) => ({ kind: 'call' as const, ok })),
      fc.integer({ min: 0, max: 150 }).map((ms) => ({ kind: 'advance' as const, ms })),
    )
    const thresholds = fc.tuple(
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 0, max: 200 }),
      fc.integer({ min: 1, max: 4 }),
    )
    fc.assert(
      fc.property(
        thresholds,
        fc.array(step, { maxLength: 60 }),
        ([failureThreshold, delayMs, successThreshold], steps) => {
          let time = 0
          const breaker = new CircuitBreaker({
            failureThreshold,
            delayMs,
            successThreshold,
            now: () => time,
          })
          const reference = model(failureThreshold, delayMs, successThreshold)
          for (const s of steps) {
            if (s.kind === 'advance') {
              time += s.ms
              reference.advance(s.ms)
            } else {
              if (breaker.canRequest()) {
                if (s.ok) breaker.onSuccess()
                else breaker.onFailure()
              }
              reference.call(s.ok)
            }
            expect(breaker.state).toBe(reference.state())
          }
        },
      ),
      { numRuns: 500 },
    )
  })
})
