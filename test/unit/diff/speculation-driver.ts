/**
 * Run by diff-walk-speculation.test.ts in a process of its own, so that
 * the JIT starts cold: compares `count` pairs of the proxy benchmark's
 * document (numbers whole and fractional, strings, booleans, arrays), one
 * pair in `every` differing in one price, then prints how
 * often JavaScriptCore had to throw away and recompile the walk's
 * optimised code (`reoptimizationRetryCount`, `bun:jsc`).
 *
 *   bun test/unit/diff/speculation-driver.ts <count> <every>
 */
import { reoptimizationRetryCount } from 'bun:jsc'
import { compareResponses, compileCaptureOptions, DEFAULT_DIFF_CONFIG } from '../../../src/diff/index.ts'
import { DiffWalk } from '../../../src/diff/diff-walk.ts'
import { BENCH_BODY, DIFFERENT_BODY } from '../../bench/proxy-bench/fleet.ts'

const count = Number(process.argv[2])
const every = Number(process.argv[3])

const options = compileCaptureOptions({ diff: DEFAULT_DIFF_CONFIG, redactedFields: [] })
const headers = { 'content-type': ['application/json'] }
const same = new TextEncoder().encode(BENCH_BODY)
const changed = new TextEncoder().encode(DIFFERENT_BODY)
let diffs = 0
for (let i = 1; i <= count; i++) {
  const shadow = i % every === 0 ? changed : same.slice()
  const comparison = compareResponses({ status: 200, headers, body: same }, { status: 200, headers, body: shadow }, options)
  if (comparison.kind === 'diff') diffs++
}
const walk = DiffWalk.prototype as unknown as Record<string, (...args: unknown[]) => unknown>
console.log(JSON.stringify({ diffs, compareObjects: reoptimizationRetryCount(walk._compareObjects!), compare: reoptimizationRetryCount(walk.compare!) }))
