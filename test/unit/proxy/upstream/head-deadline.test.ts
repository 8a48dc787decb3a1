import { expect, test } from 'bun:test'
import { AbortFlag } from '../../../../src/async/abort-flag.ts'
import { headDeadlines } from '../../../../src/proxy/upstream/head-deadline.ts'
import { HeadTimeoutReason } from '../../../../src/proxy/upstream/upstream-error.ts'

test('a head still out when the time is up aborts the exchange with a HeadTimeoutReason', async () => {
  const deadline = headDeadlines(20)(new AbortFlag(), () => false)
  await Bun.sleep(60)
  expect(deadline.signal.aborted).toBe(true)
  expect(deadline.signal.reason).toBeInstanceOf(HeadTimeoutReason)
  expect((deadline.signal.reason as Error).message).toBe('timed out after 20ms waiting for the response head')
  deadline.end()
})

test('a head that came in time leaves the exchange running, however long its body takes', async () => {
  const deadline = headDeadlines(20)(new AbortFlag(), () => true)
  await Bun.sleep(60)
  expect(deadline.signal.aborted).toBe(false)
  deadline.end()
})

test("the exchange's own signal aborts it with its reason, and no longer once it has ended", () => {
  const source = new AbortFlag()
  const deadline = headDeadlines(10_000)(source, () => false)
  source.abort('drain')
  expect(deadline.signal.reason).toBe('drain')
  deadline.end()

  const later = new AbortFlag()
  const ended = headDeadlines(10_000)(later, () => false)
  ended.end()
  later.abort('drain')
  expect(ended.signal.aborted).toBe(false)
})

test('an exchange aborted already is aborted from the start', () => {
  const source = new AbortFlag()
  source.abort('budget')
  const deadline = headDeadlines(10_000)(source, () => false)
  expect(deadline.signal.reason).toBe('budget')
  deadline.end()
})

test('deadlines of one client share one timer: ended ones leave nothing pending, late ones each fire', async () => {
  const start = headDeadlines(20)
  const ended = Array.from({ length: 50 }, () => start(new AbortFlag(), () => false))
  for (const deadline of ended) deadline.end()
  const late = [start(new AbortFlag(), () => false), start(new AbortFlag(), () => false)]
  await Bun.sleep(60)
  expect(ended.some((deadline) => deadline.signal.aborted)).toBe(false)
  expect(late.map((deadline) => deadline.signal.reason instanceof HeadTimeoutReason)).toEqual([true, true])
})

test('a head that came leaves nothing pending: the exchange signal is still followed until the end', async () => {
  const start = headDeadlines(20)
  const source = new AbortFlag()
  const deadline = start(source, () => false)
  deadline.headCame()
  await Bun.sleep(60)
  // Cancelled when the head came, so even a headIn that says no did not fire it.
  expect(deadline.signal.aborted).toBe(false)
  source.abort('drain')
  expect(deadline.signal.reason).toBe('drain')
  deadline.end()
})
