import { describe, expect, test } from 'bun:test'
import { replayGateName } from '../../../src/replay/replay-gate.ts'

describe('replayGateName', () => {
  test('names the source and the target, the same for every run', () => {
    expect(replayGateName('orders', 'http://127.0.0.1:4000')).toBe('replay: orders -> http://127.0.0.1:4000')
  })

  test('never carries a password of the target: gate names are listed to every key holder', () => {
    expect(replayGateName('orders', 'http://ci:SEKRIT@127.0.0.1:4000')).toBe('replay: orders -> http://ci:***@127.0.0.1:4000')
  })

  test('shortens a long source name to fit 200 characters, keeping the whole target', () => {
    const name = replayGateName('x'.repeat(300), 'http://candidate.internal:8080')
    expect(name.length).toBe(200)
    expect(name).toEndWith('… -> http://candidate.internal:8080')
  })
})
