/**
 * A difference that comes once in a while must not make JavaScriptCore
 * drop the walk's optimised code at every one. The walk's leaves (numbers,
 * strings, booleans, null) meet one strict-equality test whose operands
 * the JIT typed from what it had seen, mostly the response's status and
 * header lists; a string or a fractional number there failed that guess
 * once per differing response, the code was recompiled with the same
 * guess, and the next differing response failed it again (docs/proxy.md
 * "The diff path"). Each process starts with a cold JIT; a run without
 * the remedy reached 5 to 8 recompilations in most runs, with it 1 or 2.
 */
import { expect, test } from 'bun:test'

const DRIVER = new URL('./speculation-driver.ts', import.meta.url).pathname
const COUNT = 60_000
/** Each retry doubles the exits the next compilation may take before it is dropped. */
const MAX_RETRIES = 3

async function retries(every: number): Promise<{ diffs: number; compareObjects: number; compare: number }> {
  const child = Bun.spawn([process.execPath, DRIVER, String(COUNT), String(every)], { stdout: 'pipe', stderr: 'inherit' })
  const out = await new Response(child.stdout).text()
  expect(await child.exited).toBe(0)
  return JSON.parse(out)
}

test.each([
  ['one response in ten differs', 10],
  ['every response differs', 1],
])('%s: the walk is recompiled at most a few times', async (_name, every) => {
  const runs = await Promise.all([retries(every), retries(every)])
  for (const run of runs) {
    expect(run.diffs).toBe(COUNT / every)
    expect(run.compareObjects).toBeLessThanOrEqual(MAX_RETRIES)
    expect(run.compare).toBeLessThanOrEqual(MAX_RETRIES)
  }
}, 60_000)
