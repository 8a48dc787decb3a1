import { expect, test } from 'bun:test'
import { AbortFlag } from '../../../../src/async/abort-flag.ts'
import { headDeadlines } from '../../../../src/proxy/upstream/head-deadline.ts'
import { HeadTimeoutReason } from '../../../../src/proxy/upstream/upstream-error.ts'

test('a head still out when the time is up aborts the exchange with a HeadTimeoutReason', async () => {
  const deadline = headDeadlines(20)(new AbortFlag())
  await Bun.sleep(60)
  expect(deadline.signal.aborted).toBe(true)
  expect(deadline.signal.reason).toBeInstanceOf(HeadTimeoutReason)
  expect((deadline.signal.reason as Error).message).toBe('timed out after 20ms waiting for the response head')
  deadline.end()
})

test('a head that came in time leaves the exchange running, however long its body takes', async () => {
  const deadline = headDeadlines(20)(new AbortFlag())
  deadline.headCame()
  await Bun.sleep(60)
  expect(deadline.signal.aborted).toBe(false)
  deadline.end()
})

test("the exchange's own signal aborts it with its reason, also after its head came, and no longer once it has ended", () => {
  const source = new AbortFlag()
  const deadline = headDeadlines(10_000)(source)
  deadline.headCame()
  source.abort('drain')
  expect(deadline.signal.reason).toBe('drain')
  deadline.end()

  const later = new AbortFlag()
  const ended = headDeadlines(10_000)(later)
  ended.end()
  later.abort('drain')
  expect(ended.signal.aborted).toBe(false)
})

test('an exchange aborted already is aborted from the start', () => {
  const source = new AbortFlag()
  source.abort('budget')
  const deadline = headDeadlines(10_000)(source)
  expect(deadline.signal.reason).toBe('budget')
  deadline.end()
})

test('deadlines of one client share one timer: ended ones and ones whose head came never fire, late ones each do', async () => {
  const start = headDeadlines(20)
  const ended = Array.from({ length: 50 }, () => start(new AbortFlag()))
  for (const deadline of ended) deadline.end()
  const answered = Array.from({ length: 5 }, () => start(new AbortFlag()))
  for (const deadline of answered) deadline.headCame()
  const late = [start(new AbortFlag()), start(new AbortFlag())]
  await Bun.sleep(60)
  expect([...ended, ...answered].some((deadline) => deadline.signal.aborted)).toBe(false)
  expect(late.map((deadline) => deadline.signal.reason instanceof HeadTimeoutReason)).toEqual([true, true])
})
