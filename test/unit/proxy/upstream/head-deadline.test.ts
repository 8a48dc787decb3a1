import { expect, test } from 'bun:test'
import { AbortFlag } from '../../../../src/async/abort-flag.ts'
import { headDeadline } from '../../../../src/proxy/upstream/head-deadline.ts'
import { HeadTimeoutReason } from '../../../../src/proxy/upstream/upstream-error.ts'

test('a head still out when the time is up aborts the exchange with a HeadTimeoutReason', async () => {
  const deadline = headDeadline(new AbortFlag(), 20, () => false)
  await Bun.sleep(60)
  expect(deadline.signal.aborted).toBe(true)
  expect(deadline.signal.reason).toBeInstanceOf(HeadTimeoutReason)
  expect((deadline.signal.reason as Error).message).toBe('timed out after 20ms waiting for the response head')
  deadline.end()
})

test('a head that came in time leaves the exchange running, however long its body takes', async () => {
  const deadline = headDeadline(new AbortFlag(), 20, () => true)
  await Bun.sleep(60)
  expect(deadline.signal.aborted).toBe(false)
  deadline.end()
})

test("the exchange's own signal aborts it with its reason, and no longer once it has ended", () => {
  const source = new AbortFlag()
  const deadline = headDeadline(source, 10_000, () => false)
  source.abort('drain')
  expect(deadline.signal.reason).toBe('drain')
  deadline.end()

  const later = new AbortFlag()
  const ended = headDeadline(later, 10_000, () => false)
  ended.end()
  later.abort('drain')
  expect(ended.signal.aborted).toBe(false)
})

test('an exchange aborted already is aborted from the start', () => {
  const source = new AbortFlag()
  source.abort('budget')
  const deadline = headDeadline(source, 10_000, () => false)
  expect(deadline.signal.reason).toBe('budget')
  deadline.end()
})
