import { describe, expect, test } from 'bun:test'
import { Pacer } from '../../../src/replay/pacer.ts'

/**
 * A pacer on a clock the test moves: each take() records when it was let
 * through (the clock when it asked, plus what the pacer made it sleep).
 */
function pacedOn(rate: number) {
  let now = 0
  const starts: number[] = []
  let slept = 0
  const pacer = new Pacer(
    rate,
    () => now,
    async (ms) => {
      slept = ms
    },
  )
  return {
    async take() {
      const asked = now
      slept = 0
      const taking = pacer.take()
      const mine = slept
      await taking
      starts.push(asked + mine)
      now = Math.max(now, asked + mine)
    },
    advance: (ms: number) => (now += ms),
    starts,
  }
}

describe('Pacer', () => {
  test('spaces starts 1/rate apart', async () => {
    const p = pacedOn(100)
    for (let i = 0; i < 5; i++) await p.take()
    expect(p.starts).toEqual([0, 10, 20, 30, 40])
  })

  test('a late caller is not made up for by a burst afterwards', async () => {
    const p = pacedOn(10)
    await p.take()
    p.advance(500)
    await p.take()
    await p.take()
    await p.take()
    expect(p.starts).toEqual([0, 500, 600, 700])
  })

  test('callers asking at the same time share the rate', async () => {
    const p = pacedOn(4)
    await Promise.all([p.take(), p.take(), p.take(), p.take()])
    expect(p.starts.sort((a, b) => a - b)).toEqual([0, 250, 500, 750])
  })

  test('no rate lets every caller through at once', async () => {
    const p = pacedOn(Infinity)
    await Promise.all([p.take(), p.take(), p.take()])
    expect(p.starts).toEqual([0, 0, 0])
  })
})
