import { describe, expect, test } from 'bun:test'
import { hasKind, workerIndexOf } from '../../../src/workers/ipc-messages.ts'

describe('workerIndexOf', () => {
  test('reads --worker=<n> among the arguments', () => {
    expect(workerIndexOf(['--worker=0'])).toBe(0)
    expect(workerIndexOf(['x', '--worker=12'])).toBe(12)
  })

  test('is undefined for a process that is no worker', () => {
    expect(workerIndexOf([])).toBeUndefined()
    expect(workerIndexOf(['--workers=2'])).toBeUndefined()
  })

  test('is NaN for a malformed flag, which the worker refuses', () => {
    for (const flag of ['--worker', '--worker=', '--worker=-1', '--worker=one', '--worker=1.5']) expect(workerIndexOf([flag])).toBeNaN()
  })
})

describe('hasKind', () => {
  test('accepts only objects with a string kind', () => {
    expect(hasKind({ kind: 'ready' })).toBe(true)
    for (const message of [null, 'ready', 1, {}, { kind: 1 }]) expect(hasKind(message)).toBe(false)
  })
})
