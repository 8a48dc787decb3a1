import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { AbortFlag, abortSignalOf, FollowingFlag, type AbortLike } from '../../../src/async/abort-flag.ts'

/** What a sequence of calls does to a cancellation: which listeners were called, in what order, and its state. */
type Step = { readonly op: 'add' | 'remove'; readonly listener: number } | { readonly op: 'abort'; readonly reason: string | undefined }

/** What a listener does when called, besides saying so: nothing, or a call on the same cancellation. */
type Reaction = { readonly op: 'none' } | { readonly op: 'add' | 'remove'; readonly listener: number } | { readonly op: 'abort' }

function play(target: AbortLike, abort: (reason?: unknown) => void, steps: readonly Step[], reactions: readonly Reaction[] = []) {
  const calls: number[] = []
  const listeners: (() => void)[] = [0, 1, 2, 3].map((n) => () => {
    calls.push(n)
    const reaction = reactions[n] ?? { op: 'none' }
    if (reaction.op === 'add') target.addEventListener('abort', listeners[reaction.listener]!)
    else if (reaction.op === 'remove') target.removeEventListener('abort', listeners[reaction.listener]!)
    else if (reaction.op === 'abort') abort('again')
  })
  for (const step of steps) {
    if (step.op === 'add') target.addEventListener('abort', listeners[step.listener]!)
    else if (step.op === 'remove') target.removeEventListener('abort', listeners[step.listener]!)
    else if (step.op === 'abort') abort(step.reason)
  }
  const reason = target.reason
  return { calls, aborted: target.aborted, reason: reason instanceof DOMException ? `DOMException ${reason.name}` : reason }
}

const reaction: fc.Arbitrary<Reaction> = fc.oneof(
  fc.constant({ op: 'none' as const }),
  fc.record({ op: fc.constantFrom('add' as const, 'remove' as const), listener: fc.nat(3) }),
  fc.constant({ op: 'abort' as const }),
)

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constantFrom('add' as const, 'remove' as const), listener: fc.nat(3) }),
  fc.record({ op: fc.constant('abort' as const), reason: fc.option(fc.string(), { nil: undefined }) }),
)

describe('AbortFlag', () => {
  test('does what an AbortController’s signal does, whatever the calls, also from listeners during the abort', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), fc.array(reaction, { minLength: 4, maxLength: 4 }), (steps, reactions) => {
        const controller = new AbortController()
        const flag = new AbortFlag()
        expect(play(flag, (reason) => flag.abort(reason), steps, reactions)).toEqual(
          play(controller.signal, (reason) => controller.abort(reason), steps, reactions),
        )
      }),
      { numRuns: 1000 },
    )
  })

  test('a listener removed by another during the abort is not called', () => {
    const flag = new AbortFlag()
    const calls: string[] = []
    const b = () => void calls.push('b')
    flag.addEventListener('abort', () => {
      calls.push('a')
      flag.removeEventListener('abort', b)
    })
    flag.addEventListener('abort', b)
    flag.abort()
    expect(calls).toEqual(['a'])
  })

  test('listeners are called once, in the order added; one added twice once; one added after the abort never', () => {
    const flag = new AbortFlag()
    const calls: string[] = []
    const a = () => void calls.push('a')
    const b = () => void calls.push('b')
    flag.addEventListener('abort', a)
    flag.addEventListener('abort', b)
    flag.addEventListener('abort', a)
    flag.abort('why')
    flag.abort('again')
    flag.addEventListener('abort', () => void calls.push('late'))
    expect(calls).toEqual(['a', 'b'])
    expect(flag.reason).toBe('why')
  })

  test('without a reason, the reason is an AbortController’s: a DOMException named AbortError', () => {
    const flag = new AbortFlag()
    flag.abort()
    const controller = new AbortController()
    controller.abort()
    expect(flag.reason).toBeInstanceOf(DOMException)
    expect((flag.reason as DOMException).name).toBe('AbortError')
    expect((flag.reason as DOMException).message).toBe((controller.signal.reason as DOMException).message)
  })
})

describe('abortSignalOf', () => {
  test('an AbortSignal is its own', () => {
    const signal = new AbortController().signal
    expect(abortSignalOf(signal).signal).toBe(signal)
  })

  test('follows the flag with its reason until released', () => {
    const flag = new AbortFlag()
    const followed = abortSignalOf(flag)
    expect(followed.signal.aborted).toBe(false)
    flag.abort('because')
    expect(followed.signal.aborted).toBe(true)
    expect(followed.signal.reason).toBe('because')

    const other = new AbortFlag()
    const released = abortSignalOf(other)
    released.release()
    other.abort('late')
    expect(released.signal.aborted).toBe(false)
  })

  test('a flag aborted already gives a signal aborted already', () => {
    const flag = new AbortFlag()
    flag.abort('before')
    const { signal } = abortSignalOf(flag)
    expect(signal.aborted).toBe(true)
    expect(signal.reason).toBe('before')
  })
})

describe('FollowingFlag', () => {
  test("aborted by its source with the source's reason, or by itself with its own; the source is left as it was", () => {
    const source = new AbortFlag()
    const followed = new FollowingFlag(source)
    source.abort('drain')
    expect(followed.reason).toBe('drain')

    const other = new AbortFlag()
    const own = new FollowingFlag(other)
    own.abort('late')
    expect(own.reason).toBe('late')
    expect(other.aborted).toBe(false)
  })

  test('a source aborted already gives a flag aborted already; after unfollow the source no longer reaches it', () => {
    const before = new AbortFlag()
    before.abort('budget')
    expect(new FollowingFlag(before).reason).toBe('budget')

    const source = new AbortFlag()
    const flag = new FollowingFlag(source)
    flag.unfollow()
    source.abort('drain')
    expect(flag.aborted).toBe(false)
  })

  test('its listeners are called once, on either abort', () => {
    const source = new AbortFlag()
    const flag = new FollowingFlag(source)
    let calls = 0
    flag.addEventListener('abort', () => calls++)
    flag.abort('late')
    source.abort('drain')
    expect(calls).toBe(1)
    expect(flag.reason).toBe('late')
  })
})
