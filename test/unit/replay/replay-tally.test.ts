import { describe, expect, test } from 'bun:test'
import { ReplayTally } from '../../../src/replay/replay-tally.ts'

describe('ReplayTally', () => {
  test('accounts for every capture once, by outcome and reason, with the first failure of each reason', () => {
    const tally = new ReplayTally()
    tally.recordReplayed(false, false)
    tally.recordReplayed(true, false)
    tally.recordReplayed(true, true)
    tally.recordSkipped('method')
    tally.recordSkipped('redacted')
    tally.recordSkipped('method')
    tally.recordFailed('not_stored', 'the API answered 413')
    tally.recordFailed('not_stored', 'the API answered 400')
    expect(tally.done).toBe(8)
    expect(tally.summary()).toBe(
      [
        'replay: 8 captures: 3 replayed, 3 skipped, 2 failed',
        '  replayed: 2 with a difference, 1 where the candidate failed',
        '  skipped: method 2, redacted 1',
        '  failed: not_stored 2',
        '  first not_stored: the API answered 413',
        '',
      ].join('\n'),
    )
  })

  test('says nothing of skips and failures there were none of', () => {
    const tally = new ReplayTally()
    tally.recordReplayed(false, false)
    expect(tally.summary()).toBe('replay: 1 captures: 1 replayed, 0 skipped, 0 failed\n  replayed: 0 with a difference, 0 where the candidate failed\n')
  })
})
