import { describe, expect, test } from 'bun:test'
import { eta, progressBar, progressLine } from '../../../src/replay/progress-line.ts'

describe('progress display', () => {
  test('a bar with done/total, the rate so far, diffs and the time left', () => {
    expect(progressBar({ done: 500, total: 1000, diffs: 3, elapsedMs: 1000 })).toBe(
      '[############------------] 500/1000  500 req/s  diffs 3  ETA 1s',
    )
    expect(progressLine({ done: 500, total: 1000, diffs: 3, elapsedMs: 1000 })).toBe('replay: 500/1000 done, 500 req/s, 3 diffs, ETA 1s')
  })

  test.each([
    ['nothing done yet', { done: 0, total: 10, diffs: 0, elapsedMs: 0 }, '?'],
    ['no total', { done: 5, total: undefined, diffs: 0, elapsedMs: 1000 }, '?'],
    ['690 to go at 10/s', { done: 10, total: 700, diffs: 0, elapsedMs: 1000 }, '1m09s'],
    ['all done', { done: 10, total: 10, diffs: 0, elapsedMs: 1000 }, '0s'],
  ] as const)('ETA with %s is %s', (_name, snapshot, text) => {
    expect(eta(snapshot)).toBe(text)
  })

  test('an empty or unknown total draws an empty bar', () => {
    expect(progressBar({ done: 0, total: 0, diffs: 0, elapsedMs: 5 })).toStartWith(`[${'-'.repeat(24)}] 0/0`)
    expect(progressBar({ done: 3, total: undefined, diffs: 0, elapsedMs: 5 })).toStartWith(`[${'-'.repeat(24)}] 3/?`)
  })
})
