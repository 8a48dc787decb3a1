import { describe, expect, test } from 'bun:test'
import { restartDelay } from '../../../src/workers/restart-delay.ts'

describe('restartDelay', () => {
  test('a worker that ran a while is restarted at once', () => {
    expect(restartDelay(60_000, 0)).toBe(250)
    expect(restartDelay(10_000, 16_000)).toBe(250)
  })

  test('one that keeps dying young waits twice as long each time, up to 30 s', () => {
    const delays: number[] = []
    let previous = 0
    for (let i = 0; i < 8; i++) {
      previous = restartDelay(500, previous)
      delays.push(previous)
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000])
  })
})
