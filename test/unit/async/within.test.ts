import { expect, test } from 'bun:test'
import { within } from '../../../src/async/within.ts'

test('gives the work’s value when it settles first, and late() is never called', async () => {
  let lateCalls = 0
  expect(await within(Promise.resolve('done'), 1000, () => (lateCalls++, 'late'))).toBe('done')
  expect(lateCalls).toBe(0)
})

test('gives late()’s value when the time passes first', async () => {
  const never = new Promise<string>(() => {})
  expect(await within(never, 5, () => 'late')).toBe('late')
})

test('a rejection of the work passes through', async () => {
  await expect(within(Promise.reject(new Error('boom')), 1000, () => 'late')).rejects.toThrow('boom')
})
